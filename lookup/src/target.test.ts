import { describe, expect, it } from 'vitest';
import { findTarget, parseResultId } from './mcp/ids.ts';
import { checkRecord, checkTarget, normaliseIp } from './target.ts';

describe('checkTarget', () => {
  it('normalises domains: case, trailing dot, IDN, brackets around IPv6', () => {
    expect(checkTarget('Example.COM.', 'domain')).toEqual({ ok: true, target: 'example.com', isIp: false });
    expect(checkTarget('bücher.example', 'domain')).toEqual({ ok: true, target: 'xn--bcher-kva.example', isIp: false });
    expect(checkTarget('_dmarc.acme.test', 'domain')).toMatchObject({ ok: true, target: '_dmarc.acme.test' });
    expect(checkTarget('[2001:DB8::1]', 'domain_or_ip')).toEqual({ ok: true, target: '2001:db8::1', isIp: true });
    expect(checkTarget(' acme.test ', 'domain')).toMatchObject({ ok: true, target: 'acme.test' });
  });

  it('refuses what cannot be one domain, with a reason', () => {
    const refused = (raw: string, kind: 'domain' | 'domain_or_ip' = 'domain') => {
      const r = checkTarget(raw, kind);
      return r.ok ? undefined : r.reason;
    };
    expect(refused('')).toMatch(/empty/);
    expect(refused('a..b')).toMatch(/empty label/);
    expect(refused('acme.test\u0000')).toMatch(/control/);
    expect(refused('acme.test\u0085')).toMatch(/control/);
    expect(refused('x'.repeat(2000))).toMatch(/characters long/);
    expect(refused(`${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}`)).toMatch(/253/);
    expect(refused('a b.test')).toMatch(/spaces/);
    expect(refused('1.2.3.4')).toMatch(/not an IP/);
    expect(refused('1.2.3.4', 'domain_or_ip')).toBeUndefined();
    expect(refused('fe80::1%eth0', 'domain_or_ip')).toBeDefined();
    expect(refused('acme.test:25')).toBeDefined();
    expect(refused('a*.test')).toBeDefined();
  });

  it('normalises IPs to one spelling', () => {
    expect(normaliseIp('::ffff:192.0.2.1')).toBe('192.0.2.1');
    expect(normaliseIp('2001:0DB8:0000::0001')).toBe('2001:db8::1');
  });

  it('checks pasted records', () => {
    expect(checkRecord('  v=spf1\t-all ', 100)).toEqual({ ok: true, record: 'v=spf1 -all' });
    expect(checkRecord('', 100).ok).toBe(false);
    expect(checkRecord('v=spf1\n-all', 100).ok).toBe(false);
    expect(checkRecord('x'.repeat(101), 100).ok).toBe(false);
  });
});

describe('search and fetch ids', () => {
  it('finds the domain in a question, URL or email address', () => {
    expect(findTarget('What is the DMARC policy of Example.com?')).toEqual({ target: 'example.com', isIp: false });
    expect(findTarget('check https://www.acme.test/login please')).toEqual({ target: 'www.acme.test', isIp: false });
    expect(findTarget('mail to bob@acme.test bounces')).toEqual({ target: 'acme.test', isIp: false });
    expect(findTarget('e.g. who owns 192.0.2.7')).toEqual({ target: '192.0.2.7', isIp: true });
    expect(findTarget('acme.test')).toEqual({ target: 'acme.test', isIp: false });
    expect(findTarget('how do I set up SPF')).toBeUndefined();
  });

  it('parses <tool>:<target>, also by REST slug, keeping IPv6 colons', () => {
    expect(parseResultId('dns_lookup:acme.test')).toMatchObject({ spec: { name: 'dns_lookup' }, target: 'acme.test' });
    expect(parseResultId('email-security:acme.test')).toMatchObject({ spec: { name: 'email_security_check' }, target: 'acme.test' });
    expect(parseResultId('whois_lookup:2001:db8::1')).toMatchObject({ spec: { name: 'whois_lookup' }, target: '2001:db8::1' });
    expect(parseResultId('validate:v=spf1')).toBeUndefined();
    expect(parseResultId('nope:acme.test')).toBeUndefined();
    expect(parseResultId('acme.test')).toBeUndefined();
  });
});
