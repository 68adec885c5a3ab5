import { describe, expect, it } from 'vitest';
import { dottedIp, formatIp, inPrefix, parseIp, parseIp4Network, reverseName } from './ip.ts';

describe('ip', () => {
  it('treats IPv4-mapped IPv6 addresses as IPv4', () => {
    expect(parseIp('::FFFF:1.2.3.4')).toEqual({ version: 4, bytes: Uint8Array.from([1, 2, 3, 4]) });
    expect(parseIp('::ffff:102:304')?.version).toBe(4);
    expect(parseIp('CAFE:BABE::192.168.218.40')?.version).toBe(6);
  });

  it('rejects what is not an address', () => {
    expect(parseIp('1.2.3')).toBeNull();
    expect(parseIp('fe80::1%eth0')).toBeNull();
    expect(parseIp4Network('1.2.3.04')).toBeNull();
  });

  it('formats addresses for the macros', () => {
    const v6 = parseIp('2001:DB8:0:0:1:0:0:1');
    expect(v6 && formatIp(v6)).toBe('2001:db8::1:0:0:1');
    const babe = parseIp('CAFE:BABE::1');
    expect(babe && dottedIp(babe)).toBe('C.A.F.E.B.A.B.E.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.1');
    expect(babe && reverseName(babe)).toBe('1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.e.b.a.b.e.f.a.c.ip6.arpa');
    const v4 = parseIp('192.0.2.3');
    expect(v4 && reverseName(v4)).toBe('3.2.0.192.in-addr.arpa');
  });

  it('matches prefixes bit by bit', () => {
    const ip = Uint8Array.from([192, 0, 2, 130]);
    expect(inPrefix(ip, Uint8Array.from([192, 0, 2, 128]), 25)).toBe(true);
    expect(inPrefix(ip, Uint8Array.from([192, 0, 2, 0]), 25)).toBe(false);
    expect(inPrefix(ip, Uint8Array.from([10, 0, 0, 0]), 0)).toBe(true);
  });
});
