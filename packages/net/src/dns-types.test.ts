import { describe, expect, it } from 'vitest';
import { isRrType, RR_TYPE, RR_TYPES, rrTypeName } from './dns-types.ts';

describe('the DNS record-type table', () => {
  it('maps every name to its IANA code and back', () => {
    expect(RR_TYPE).toMatchObject({ A: 1, NS: 2, CNAME: 5, SOA: 6, PTR: 12, MX: 15, TXT: 16, AAAA: 28, SRV: 33, DS: 43, DNSKEY: 48, SPF: 99, CAA: 257 });
    for (const name of RR_TYPES) expect(rrTypeName(RR_TYPE[name])).toBe(name);
    expect(new Set(Object.values(RR_TYPE)).size).toBe(RR_TYPES.length);
  });

  it('knows only the types it lists', () => {
    expect(rrTypeName(255)).toBeUndefined();
    expect(rrTypeName(41)).toBeUndefined();
    expect(isRrType('MX')).toBe(true);
    expect(isRrType('toString')).toBe(false);
  });
});
