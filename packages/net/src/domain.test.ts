import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nameShapeProblem, organizationalDomain, parseHostname, publicNameProblem, type HostnameProblem } from './domain.ts';

// The grammar of both callers (the lookup API's pre-validation and mailsec's tool targets), with
// its typed problems; the wording of each problem is the callers' and is tested there.

describe('parseHostname', () => {
  it.each([
    ['Example.COM.', 'example.com'],
    ['acme.test', 'acme.test'],
    ['_dmarc.acme.test', '_dmarc.acme.test'],
    ['sel._domainkey.acme.test', 'sel._domainkey.acme.test'],
    ['bücher.de', 'xn--bcher-kva.de'],
    ['bücher.example', 'xn--bcher-kva.example'],
    ['mail.example.co.uk', 'mail.example.co.uk'],
  ])('%s → %s', (input, name) => expect(parseHostname(input)).toMatchObject({ ok: true, name }));

  const problem = (input: string): HostnameProblem | undefined => {
    const r = parseHostname(input);
    return r.ok ? undefined : r.problem;
  };

  it.each<[string, HostnameProblem['code']]>([
    ['', 'empty'],
    ['.', 'empty'],
    [`${'a.'.repeat(127)}com`, 'too_long'],
    ['a b.test', 'invalid'],
    ['acme.test:25', 'invalid'],
    ['ex%ample.com', 'invalid'],
    ['example.123', 'invalid'],
    ['localhost', 'single_label'],
    ['com', 'single_label'],
    ['a..b', 'empty_label'],
    [`${'a'.repeat(64)}.com`, 'label_too_long'],
    ['-bad.example.com', 'label_chars'],
    ['bad-.example.com', 'label_chars'],
    ['a*.test', 'label_chars'],
    ['1.2.3', 'numeric_tld'],
  ])('%j → %s', (input, code) => expect(problem(input)?.code).toBe(code));

  it('counts the A-label form against the length limit', () => {
    const name = `${Array(8).fill(`äöüéèàçñøåæß${'x'.repeat(16)}`).join('.')}.test`; // 236 characters, 340 as A-labels
    expect(problem(name)).toMatchObject({ code: 'too_long', ascii: true });
  });

  it('is idempotent on what it accepts, and lower-cases', () => {
    const label = fc.stringMatching(/^[a-zA-Z0-9](?:[a-zA-Z0-9_-]{0,20}[a-zA-Z0-9])?$/).filter((l) => !/^xn--/i.test(l));
    const name = fc.tuple(fc.array(label, { minLength: 1, maxLength: 4 }), fc.stringMatching(/^[a-zA-Z]{2,6}$/)).map(([ls, tld]) => [...ls, tld].join('.'));
    fc.assert(
      fc.property(name, (n) => {
        const once = parseHostname(n);
        expect(once.ok).toBe(true);
        if (!once.ok) return;
        expect(once.name).toBe(n.toLowerCase());
        expect(parseHostname(once.name)).toMatchObject({ ok: true, name: once.name });
      }),
    );
  });
});

describe('nameShapeProblem', () => {
  it.each([
    ['acme.test', null],
    ['a b.test', 'spaces'],
    ['user@acme.test', 'mailbox'],
    ['https://acme.test/', 'url'],
    ['acme.test/path', 'url'],
    ['acme.test:25', 'colon'],
  ] as const)('%s → %s', (input, want) => expect(nameShapeProblem(input)).toBe(want));
});

describe('publicNameProblem', () => {
  it.each([
    ['example.com', null],
    ['acme.test', null],
    ['printer.local', 'special_use_tld'],
    ['x.localhost', 'special_use_tld'],
    ['co.uk', 'public_suffix'],
    ['example.c0m', 'bad_tld'],
  ] as const)('%s → %s', (input, code) => expect(publicNameProblem(input)?.code ?? null).toBe(code));
});

describe('organizationalDomain', () => {
  it.each([
    ['mail.example.co.uk', 'example.co.uk'],
    ['a.b.example.com', 'example.com'],
    ['sub.orgfallback.test', 'orgfallback.test'],
  ])('%s → %s', (input, expected) => expect(organizationalDomain(input)).toBe(expected));
});
