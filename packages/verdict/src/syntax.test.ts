import { describe, expect, it } from 'vitest';
import { checkSyntax } from './syntax.ts';
import type { SyntaxErrorCode } from './syntax.ts';

describe('checkSyntax accepts what MTAs deliver to', () => {
  const cases: { input: string; address: string; domainUnicode?: string; quoted?: boolean; smtputf8?: boolean }[] = [
    { input: 'john.smith@example.com', address: 'john.smith@example.com' },
    { input: 'John.Smith@EXAMPLE.COM', address: 'John.Smith@example.com' },
    { input: '  jane@example.com \u00a0', address: 'jane@example.com' },
    { input: "o'brien+news@example.co.uk", address: "o'brien+news@example.co.uk" },
    { input: "!#$%&'*+-/=?^_`{|}~@example.org", address: "!#$%&'*+-/=?^_`{|}~@example.org" },
    { input: 'user@bücher.de', address: 'user@xn--bcher-kva.de', domainUnicode: 'bücher.de' },
    { input: 'user@xn--bcher-kva.de', address: 'user@xn--bcher-kva.de', domainUnicode: 'bücher.de' },
    { input: 'user@münchen\u3002de', address: 'user@xn--mnchen-3ya.de', domainUnicode: 'münchen.de' },
    { input: '用户@例子.测试', address: '用户@xn--fsqu00a.xn--0zwm56d', domainUnicode: '例子.测试', smtputf8: true },
    { input: 'josé@example.com', address: 'josé@example.com', smtputf8: true },
    { input: '"john doe"@example.com', address: '"john doe"@example.com', quoted: true },
    { input: '"john"@example.com', address: 'john@example.com', quoted: true },
    { input: '"a\\"b"@example.com', address: '"a\\"b"@example.com', quoted: true },
    { input: '"a@b"@example.com', address: '"a@b"@example.com', quoted: true },
    { input: 'x@a-b.example', address: 'x@a-b.example' },
    { input: 'x@123.example.com', address: 'x@123.example.com' },
    { input: `${'a'.repeat(64)}@example.com`, address: `${'a'.repeat(64)}@example.com` },
  ];
  it.each(cases)('$input', (c) => {
    const r = checkSyntax(c.input);
    expect(r.ok, JSON.stringify(r)).toBe(true);
    if (!r.ok) return;
    expect(r.address).toBe(c.address);
    expect(r.quoted).toBe(c.quoted ?? false);
    expect(r.smtputf8).toBe(c.smtputf8 ?? false);
    if (c.domainUnicode) expect(r.domainUnicode).toBe(c.domainUnicode);
    expect(r.address).toBe(`${r.local}@${r.domain}`);
  });
});

describe('checkSyntax rejects with a code and a reason', () => {
  const cases: { input: string; code: SyntaxErrorCode }[] = [
    { input: '', code: 'empty' },
    { input: '   ', code: 'empty' },
    { input: `${'a'.repeat(300)}@${'b'.repeat(20)}.com`, code: 'input_too_long' },
    { input: 'a@example.com\r\nRCPT TO:<x@y.com>', code: 'control_character' },
    { input: 'a\n@example.com', code: 'control_character' },
    { input: 'a\u0000b@example.com', code: 'control_character' },
    { input: 'a@example.com\t', code: 'control_character' },
    { input: 'a\u007f@example.com', code: 'control_character' },
    { input: 'a\u202e@example.com', code: 'control_character' },
    { input: 'a\u200b@example.com', code: 'control_character' },
    { input: 'example.com', code: 'missing_at' },
    { input: 'a@b@example.com', code: 'multiple_at' },
    { input: '"a"@b@example.com', code: 'multiple_at' },
    { input: '@example.com', code: 'local_empty' },
    { input: '""@example.com', code: 'local_empty' },
    { input: `${'a'.repeat(65)}@example.com`, code: 'local_too_long' },
    { input: `${'é'.repeat(33)}@example.com`, code: 'local_too_long' },
    { input: 'john doe@example.com', code: 'local_invalid_char' },
    { input: 'john(comment)@example.com', code: 'local_invalid_char' },
    { input: 'a,b@example.com', code: 'local_invalid_char' },
    { input: 'a<b>@example.com', code: 'local_invalid_char' },
    { input: 'a\u3000b@example.com', code: 'local_invalid_char' },
    { input: '.john@example.com', code: 'local_dots' },
    { input: 'john.@example.com', code: 'local_dots' },
    { input: 'jo..hn@example.com', code: 'local_dots' },
    { input: '"john"."doe"@example.com', code: 'quoted_invalid' },
    { input: '"john@example.com', code: 'quoted_invalid' },
    { input: 'john@', code: 'domain_empty' },
    { input: 'john@[192.0.2.1]', code: 'address_literal' },
    { input: 'john@[IPv6:2001:db8::1]', code: 'address_literal' },
    { input: 'john@192.0.2.1', code: 'domain_numeric' },
    { input: 'john@0x7f.1', code: 'domain_numeric' },
    { input: 'john@localhost', code: 'domain_single_label' },
    { input: 'john@example..com', code: 'domain_invalid' },
    { input: 'john@.example.com', code: 'domain_invalid' },
    { input: 'john@example.com.', code: 'domain_invalid' },
    { input: 'john@exa_mple.com', code: 'domain_invalid' },
    { input: 'john@-example.com', code: 'domain_invalid' },
    { input: 'john@example-.com', code: 'domain_invalid' },
    { input: 'john@exa mple.com', code: 'domain_invalid' },
    { input: 'john@xn--zz.com', code: 'domain_invalid' },
    { input: 'john@example.c0m', code: 'domain_invalid' },
    { input: `john@${'a'.repeat(64)}.com`, code: 'domain_label_too_long' },
    { input: `a@${Array.from({ length: 5 }, () => 'b'.repeat(60)).join('.')}.com`, code: 'domain_too_long' },
    { input: `${'a'.repeat(64)}@${Array.from({ length: 4 }, () => 'b'.repeat(60)).join('.')}.com`, code: 'address_too_long' },
  ];
  it.each(cases)('$input -> $code', ({ input, code }) => {
    const r = checkSyntax(input);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.code).toBe(code);
    expect(r.reason.length).toBeGreaterThan(10);
  });
});
