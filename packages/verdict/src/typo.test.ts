import { describe, expect, it } from 'vitest';
import { KNOWN_LOOKALIKES, TYPO_TARGETS } from './data/typo-targets.ts';
import { didYouMean, editDistance, suggestDomain } from './typo.ts';

describe('suggestDomain', () => {
  const cases: [string, string | null][] = [
    ['gmial.com', 'gmail.com'],
    ['gmal.com', 'gmail.com'],
    ['gamil.com', 'gmail.com'],
    ['gmaill.com', 'gmail.com'],
    ['mgail.com', 'gmail.com'],
    ['gmail.con', 'gmail.com'],
    ['gmail.cmo', 'gmail.com'],
    ['gmail.cm', 'gmail.com'],
    ['gmail.co', 'gmail.com'],
    ['gmial.con', 'gmail.com'],
    ['hotmial.com', 'hotmail.com'],
    ['hotmai.com', 'hotmail.com'],
    ['hotmail.con', 'hotmail.com'],
    ['yahoo.co', 'yahoo.com'],
    ['yahooo.com', 'yahoo.com'],
    ['yaho.com', 'yahoo.com'],
    ['outlok.com', 'outlook.com'],
    ['outlook.co', 'outlook.com'],
    ['iclod.com', 'icloud.com'],
    ['aol.con', 'aol.com'],
    ['protonmial.com', 'protonmail.com'],
    ['comcast.nt', 'comcast.net'],
    ['GMIAL.COM', 'gmail.com'],
    // never for the popular domains themselves or known look-alikes
    ['gmail.com', null],
    ['yahoo.co.uk', null],
    ['gmx.at', null],
    ['ymail.com', null],
    ['email.com', null],
    ['mail.com', null],
    // never far from every target, never a first-letter change, never a subdomain
    ['example.com', null],
    ['acme-industries.com', null],
    ['cloud.com', null],
    ['kmail.com', null],
    ['small.com', null],
    ['mail.gmial.com', null],
    ['gmail.de', null],
    ['aon.com', null],
    ['life.com', null],
  ];
  it.each(cases)('%s -> %s', (domain, expected) => expect(suggestDomain(domain)).toBe(expected));

  it('never corrects a target or a listed look-alike', () => {
    for (const d of [...TYPO_TARGETS, ...KNOWN_LOOKALIKES]) expect(suggestDomain(d), d).toBeNull();
  });

  it('returns the full suggested address', () => {
    expect(didYouMean('jane.doe', 'gmial.com')).toBe('jane.doe@gmail.com');
    expect(didYouMean('jane.doe', 'gmail.com')).toBeNull();
  });
});

describe('editDistance (optimal string alignment)', () => {
  const cases: [string, string, number][] = [
    ['gmail', 'gmail', 0],
    ['gmial', 'gmail', 1],
    ['gmal', 'gmail', 1],
    ['gmaill', 'gmail', 1],
    ['hotmail', 'hitmail', 1],
    ['ca', 'abc', 3],
    ['', 'abc', 3],
  ];
  it.each(cases)('%s / %s = %i', (a, b, d) => expect(editDistance(a, b)).toBe(d));
});
