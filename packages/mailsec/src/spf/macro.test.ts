import { describe, expect, it } from 'vitest';
import { expandMacros, parseMacroString, urlEscape, type MacroValues } from './macro.ts';

const values: MacroValues = {
  s: 'strong-bad@email.example.com',
  l: 'strong-bad',
  o: 'email.example.com',
  d: 'email.example.com',
  i: '192.0.2.3',
  v: 'in-addr',
  h: 'mx.example.org',
  c: '192.0.2.3',
  r: 'receiver.example',
  t: '1700000000',
  p: async () => 'mx.example.org',
};

async function expand(text: string, context: 'domain' | 'explain' = 'domain'): Promise<string> {
  const parsed = parseMacroString(text, context);
  if (!parsed.ok) throw new Error(parsed.error);
  return expandMacros(parsed.tokens, values);
}

describe('macro expansion (RFC 7208 7.4 examples)', () => {
  it.each([
    ['%{s}', 'strong-bad@email.example.com'],
    ['%{o}', 'email.example.com'],
    ['%{d}', 'email.example.com'],
    ['%{d4}', 'email.example.com'],
    ['%{d3}', 'email.example.com'],
    ['%{d2}', 'example.com'],
    ['%{d1}', 'com'],
    ['%{dr}', 'com.example.email'],
    ['%{d2r}', 'example.email'],
    ['%{l}', 'strong-bad'],
    ['%{l-}', 'strong.bad'],
    ['%{lr}', 'strong-bad'],
    ['%{lr-}', 'bad.strong'],
    ['%{l1r-}', 'strong'],
    ['%{ir}.%{v}._spf.%{d2}', '3.2.0.192.in-addr._spf.example.com'],
    ['%{lr-}.lp._spf.%{d2}', 'bad.strong.lp._spf.example.com'],
    ['%{lr-}.lp.%{ir}.%{v}._spf.%{d2}', 'bad.strong.lp.3.2.0.192.in-addr._spf.example.com'],
    ['%{ir}.%{v}.%{l1r-}.lp._spf.%{d2}', '3.2.0.192.in-addr.strong.lp._spf.example.com'],
    ['%{d2}.trusted-domains.example.net', 'example.com.trusted-domains.example.net'],
    ['%{p}.x', 'mx.example.org.x'],
    ['a%%b%_c%-d', 'a%b c%20d'],
  ])('%s → %s', async (text, expected) => {
    expect(await expand(text)).toBe(expected);
  });

  it('URL-escapes upper-case macros', async () => {
    expect(await expand('%{S}')).toBe('strong-bad%40email.example.com');
    expect(urlEscape('~jack&jill=up-a_b3.c')).toBe('~jack%26jill%3Dup-a_b3.c');
  });

  it('allows c, r, t and spaces only in explanation text', async () => {
    expect(await expand('%{c} via %{r} at %{t}', 'explain')).toBe('192.0.2.3 via receiver.example at 1700000000');
    expect(parseMacroString('%{c}.example.com', 'domain').ok).toBe(false);
    expect(parseMacroString('a b', 'domain').ok).toBe(false);
  });

  it.each(['%', '%x', '%{', '%{s', '%{q}', '%{s0}', '%{s2x}', 'caf\u00e9'])('rejects %j', (text) => {
    expect(parseMacroString(text, 'explain').ok).toBe(false);
  });
});
