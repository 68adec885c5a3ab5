import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyAddress, isLoopbackAddress, isSpecialPurposeIp, type AddressRange } from './ranges.ts';

// The one table of special-purpose ranges, read two ways: the SSRF deny list (classifyAddress)
// and the IANA registries (isSpecialPurposeIp).

describe('classifyAddress', () => {
  const cases: Array<[string, AddressRange]> = [
    ['93.184.216.34', 'public'],
    ['8.8.8.8', 'public'],
    ['1.1.1.1', 'public'],
    ['0.0.0.0', 'unspecified'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['172.32.0.1', 'public'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.255', 'cgnat'],
    ['100.128.0.1', 'public'],
    ['169.254.169.254', 'cloud_metadata'],
    ['169.254.1.1', 'link_local'],
    ['100.100.100.200', 'cloud_metadata'],
    ['168.63.129.16', 'cloud_metadata'],
    ['192.0.0.192', 'reserved'],
    ['192.0.2.10', 'documentation'],
    ['198.18.0.1', 'benchmarking'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['2606:4700::1111', 'public'],
    ['2001:4860:4860::8888', 'public'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['fc00::1', 'unique_local'],
    ['fd12:3456::1', 'unique_local'],
    ['fd00:ec2::254', 'cloud_metadata'],
    ['fe80::1', 'link_local'],
    ['febf::1', 'link_local'],
    ['fec0::1', 'site_local'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:10.1.2.3', 'private'],
    ['::ffff:169.254.169.254', 'cloud_metadata'],
    ['::ffff:8.8.8.8', 'public'],
    ['64:ff9b::10.0.0.1', 'private'],
    ['64:ff9b::a9fe:a9fe', 'cloud_metadata'],
    ['64:ff9b::8.8.8.8', 'public'],
    ['64:ff9b:1::1', 'nat64_local'],
    ['2002:0a00:0001::1', 'private'],
    ['2002:0808:0808::1', 'public'],
    ['2001:0:4136:e378::1', 'tunnel'],
    ['2001:db8::1', 'documentation'],
    ['3fff::1', 'documentation'],
    ['::127.0.0.1', 'reserved'],
    ['::8.8.8.8', 'reserved'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:a00:1', 'private'],
    ['fe80::1%eth0', 'invalid'],
    ['100::1', 'reserved'],
    ['not-an-ip', 'invalid'],
    ['127.1', 'invalid'],
    ['0x7f.0.0.1', 'invalid'],
    ['', 'invalid'],
  ];
  it.each(cases)('%s → %s', (ip, want) => {
    expect(classifyAddress(ip)).toBe(want);
  });
});

describe('isSpecialPurposeIp (IANA registries)', () => {
  it.each([
    ['1.1.1.1', false],
    ['8.8.8.8', false],
    ['2606:4700::1111', false],
    // Host-local services at public-looking addresses are public as far as a registry knows.
    ['168.63.129.16', false],
    ['100.64.0.1', true],
    ['127.0.0.2', true],
    ['10.1.2.3', true],
    ['169.254.1.1', true],
    ['192.0.2.1', true],
    ['2001:db8::1', true],
    ['::1', true],
    ['fe80::1', true],
    ['fd00::1', true],
    ['fec0::1', true],
    ['3fff::1', true],
    ['100::1', true],
    // Every embedding form is special, whatever it embeds.
    ['::ffff:10.0.0.1', true],
    ['::ffff:8.8.8.8', true],
    ['64:ff9b::8.8.8.8', true],
    ['2002:0808:0808::1', true],
    ['not-an-ip', false],
    ['', false],
  ] as const)('%s → %s', (ip, want) => expect(isSpecialPurposeIp(ip)).toBe(want));

  it('reads a zone id as this host’s interface, never a public address', () => {
    expect(isSpecialPurposeIp('fe80::1%eth0')).toBe(true);
  });
});

describe('loopback', () => {
  it.each(['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1', '::ffff:7f00:1'])('%s is loopback', (ip) => expect(isLoopbackAddress(ip)).toBe(true));
  it.each(['10.0.0.1', '::', '0.0.0.0', 'localhost'])('%s is not', (ip) => expect(isLoopbackAddress(ip)).toBe(false));
});

const v4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((o) => o.join('.'));
const hex16 = fc.nat(0xffff).map((n) => n.toString(16));
/** A random IPv4 address inside `a.b.c.d/prefix`. */
const inV4 = (base: string, prefix: number) =>
  fc.nat(2 ** (32 - prefix) - 1).map((host) => {
    const n = (base.split('.').reduce((acc, o) => acc * 256 + Number(o), 0) + host) >>> 0;
    return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
  });

describe('properties', () => {
  it('an IPv4 address embedded in IPv6 (mapped, NAT64) is judged as the IPv4 address', () => {
    fc.assert(
      fc.property(v4, (ip) => {
        expect(classifyAddress(`::ffff:${ip}`)).toBe(classifyAddress(ip));
        expect(classifyAddress(`64:ff9b::${ip}`)).toBe(classifyAddress(ip));
      }),
    );
  });

  it('a public address is never special-purpose, and a special-purpose one never public', () => {
    fc.assert(
      fc.property(v4, (ip) => {
        if (classifyAddress(ip) === 'public') expect(isSpecialPurposeIp(ip)).toBe(false);
        if (isSpecialPurposeIp(ip)) expect(classifyAddress(ip)).not.toBe('public');
      }),
    );
  });

  it.each([
    ['0.0.0.0', 8],
    ['10.0.0.0', 8],
    ['100.64.0.0', 10],
    ['127.0.0.0', 8],
    ['169.254.0.0', 16],
    ['172.16.0.0', 12],
    ['192.168.0.0', 16],
    ['224.0.0.0', 4],
    ['240.0.0.0', 4],
  ] as const)('nothing in %s/%d is reachable, in any spelling', (base, prefix) => {
    fc.assert(
      fc.property(inV4(base, prefix), (ip) => {
        for (const form of [ip, `::ffff:${ip}`, `[::ffff:${ip}]`, `64:ff9b::${ip}`]) expect(classifyAddress(form), form).not.toBe('public');
        expect(isSpecialPurposeIp(ip)).toBe(true);
      }),
    );
  });

  it('nothing in fc00::/7, fe80::/10 or outside 2000::/3 is reachable', () => {
    const ula = fc.tuple(fc.nat(0x1ff), fc.array(hex16, { minLength: 7, maxLength: 7 })).map(([h, rest]) => [(0xfc00 + h).toString(16), ...rest].join(':'));
    const linkLocal = fc.tuple(fc.nat(0x3f), fc.array(hex16, { minLength: 7, maxLength: 7 })).map(([h, rest]) => [(0xfe80 + h).toString(16), ...rest].join(':'));
    const outside = fc.tuple(fc.integer({ min: 0x4000, max: 0xfbff }), fc.array(hex16, { minLength: 7, maxLength: 7 })).map(([h, rest]) => [h.toString(16), ...rest].join(':'));
    fc.assert(
      fc.property(fc.oneof(ula, linkLocal, outside), (ip) => {
        expect(classifyAddress(ip), ip).not.toBe('public');
      }),
    );
  });
});
