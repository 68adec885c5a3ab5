import { describe, expect, it } from 'vitest';
import { checkDomain, checkTarget, isSpecialPurposeIp, organizationalDomain } from './target.ts';
import { TargetError } from './tools/types.ts';

const DOMAIN_ONLY = { allowIp: false, allowPrivate: false };
const ANY_PUBLIC = { allowIp: true, allowPrivate: false };

describe('checkDomain', () => {
  it.each([
    ['Example.COM.', 'example.com'],
    ['  acme.test ', 'acme.test'],
    ['_dmarc.acme.test', '_dmarc.acme.test'],
    ['bücher.de', 'xn--bcher-kva.de'],
    ['mail.example.co.uk', 'mail.example.co.uk'],
  ])('%s -> %s', (input, expected) => expect(checkDomain(input)).toBe(expected));

  it.each([
    ['', 'empty'],
    ['localhost', 'single label'],
    ['com', 'single label'],
    ['co.uk', 'public suffix'],
    ['-bad.example.com', 'not a valid'],
    ['bad-.example.com', 'not a valid'],
    ['exa mple.com', 'not a domain'],
    ['https://example.com/', 'not a domain'],
    ['user@example.com', 'not a domain'],
    ['example.com:443', 'not a domain'],
    ['printer.local', 'special-use'],
    ['x.localhost', 'special-use'],
    ['example.123', 'not a valid'],
    [`${'a'.repeat(64)}.com`, 'not a valid'],
    [`${'a.'.repeat(127)}com`, 'longer than 253'],
  ])('rejects %j (%s)', (input, why) => {
    expect(() => checkDomain(input)).toThrow(TargetError);
    expect(() => checkDomain(input)).toThrow(new RegExp(why));
  });
});

describe('checkTarget', () => {
  it('accepts public IPs where allowed, and only there', () => {
    expect(checkTarget('8.8.8.8', ANY_PUBLIC)).toEqual({ kind: 'ip', ip: '8.8.8.8', family: 4 });
    expect(checkTarget('[2606:4700::1111]', ANY_PUBLIC)).toEqual({ kind: 'ip', ip: '2606:4700::1111', family: 6 });
    expect(() => checkTarget('8.8.8.8', DOMAIN_ONLY)).toThrow(/takes a domain/);
  });

  it('rejects private and special-purpose addresses unless allowed', () => {
    for (const ip of ['127.0.0.2', '10.1.2.3', '192.168.1.1', '169.254.1.1', '::1', 'fe80::1', 'fd00::1', '192.0.2.1', '::ffff:10.0.0.1']) {
      expect(() => checkTarget(ip, ANY_PUBLIC), ip).toThrow(/private or special-purpose/);
    }
    expect(checkTarget('127.0.0.2', { allowIp: true, allowPrivate: true }).kind).toBe('ip');
  });

  it('rejects malformed addresses and missing targets', () => {
    expect(() => checkTarget('1.2.3.999', ANY_PUBLIC)).toThrow(TargetError);
    expect(() => checkTarget(undefined, ANY_PUBLIC)).toThrow(/required/);
  });

  it('classifies special-purpose addresses', () => {
    expect(isSpecialPurposeIp('1.1.1.1')).toBe(false);
    expect(isSpecialPurposeIp('100.64.0.1')).toBe(true);
    expect(isSpecialPurposeIp('2001:db8::1')).toBe(true);
  });
});

describe('organizationalDomain', () => {
  it.each([
    ['mail.example.co.uk', 'example.co.uk'],
    ['a.b.example.com', 'example.com'],
    ['sub.orgfallback.test', 'orgfallback.test'],
  ])('%s -> %s', (input, expected) => expect(organizationalDomain(input)).toBe(expected));
});
