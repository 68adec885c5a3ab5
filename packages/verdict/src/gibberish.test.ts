import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { trainCharModel } from './char-model.ts';
import { NAME_CORPUS } from './data/name-corpus.ts';
import { detectGibberish } from './gibberish.ts';

function fixture(name: string): string[] {
  return readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8')
    .split('\n')
    .filter((l) => l.length > 0 && !l.startsWith('#'))
    .map((l) => l.split('\t')[0]!);
}

const RANDOM = fixture('local-parts-random.txt');
const REAL = fixture('local-parts-real.txt');
const pct = (n: number, of: number) => `${((100 * n) / of).toFixed(1)}%`;

describe('gibberish detector on the labelled sample', () => {
  it('has at least 300 examples of each kind', () => {
    expect(RANDOM.length).toBeGreaterThanOrEqual(300);
    expect(REAL.length).toBeGreaterThanOrEqual(300);
  });

  it('catches at least 90% of random local parts and flags at most 2% of real ones', () => {
    const missed = RANDOM.filter((l) => !detectGibberish(l).gibberish);
    const flagged = REAL.filter((l) => detectGibberish(l).gibberish);
    const caught = RANDOM.length - missed.length;
    console.log(`gibberish: random caught ${caught}/${RANDOM.length} (${pct(caught, RANDOM.length)}); real flagged ${flagged.length}/${REAL.length} (${pct(flagged.length, REAL.length)})`);
    if (flagged.length > 0) console.log(`  real flagged: ${flagged.join(', ')}`);
    expect(caught / RANDOM.length).toBeGreaterThanOrEqual(0.9);
    expect(flagged.length / REAL.length).toBeLessThanOrEqual(0.02);
  });

  it('still flags at most 2% of real names when the model has never seen them', () => {
    // Train without any word that appears in the real fixture: the rate on names outside the corpus.
    const seen = new Set(REAL.flatMap((l) => l.toLowerCase().split(/[^a-z]+/)));
    const heldOut = trainCharModel(NAME_CORPUS.filter((w) => !seen.has(w)));
    const flagged = REAL.filter((l) => detectGibberish(l, heldOut).gibberish);
    const caught = RANDOM.filter((l) => detectGibberish(l, heldOut).gibberish).length;
    console.log(`gibberish (held-out model): random caught ${pct(caught, RANDOM.length)}; real flagged ${flagged.length}/${REAL.length} (${pct(flagged.length, REAL.length)})${flagged.length ? `: ${flagged.join(', ')}` : ''}`);
    expect(flagged.length / REAL.length).toBeLessThanOrEqual(0.02);
    expect(caught / RANDOM.length).toBeGreaterThanOrEqual(0.9);
  });
});

describe('gibberish rules', () => {
  const cases: { local: string; gibberish: boolean; rule?: string }[] = [
    { local: 'xk7qpz9w', gibberish: true, rule: 'letter_digit_mix' },
    { local: '3f9a0c7e', gibberish: true, rule: 'letter_digit_mix' },
    { local: 'fade1234bc', gibberish: true, rule: 'hex' },
    { local: 'jkjkjkjk', gibberish: true, rule: 'repetition' },
    { local: 'zzzzzz', gibberish: true, rule: 'repetition' },
    { local: 'asdfgh', gibberish: true, rule: 'keyboard_walk' },
    { local: 'asd123qwe', gibberish: true, rule: 'keyboard_walk' },
    { local: 'qwrtzpl', gibberish: true, rule: 'no_vowel' },
    { local: 'ldkjqvxe', gibberish: true, rule: 'char_model' },
    { local: 'john.smith+xk7qpz9w3', gibberish: false },
    { local: 'hahaha', gibberish: false },
    { local: 'grzegorz.brzeczyszczykiewicz', gibberish: false },
    { local: 'jsmith', gibberish: false },
    { local: 'smithj', gibberish: false },
    { local: '13800138000', gibberish: false },
    { local: 'cafe2020', gibberish: false },
    { local: 'jrr', gibberish: false },
    { local: '"john.doe"', gibberish: false },
  ];
  it.each(cases)('$local -> $gibberish', ({ local, gibberish, rule }) => {
    const r = detectGibberish(local);
    expect(r.gibberish).toBe(gibberish);
    if (rule) expect(r.rule).toBe(rule);
  });
});
