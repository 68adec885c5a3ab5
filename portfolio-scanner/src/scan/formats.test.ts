// Field formats (docs/portfolio-scanner.md "Field formats"): one spelling per field, sorted by
// content so that the order of DNS answers never shows.
import { describe, expect, it } from 'vitest';
import { canonicalIp, formatIps, formatMx, formatPtr, formatRecords, formatSoa, formatSrv, hostName, joinSorted } from './formats.ts';

describe('formats', () => {
  it('MX: by preference, then host; lower-case, no trailing dot; null MX is "0 ."', () => {
    expect(formatMx([{ priority: 20, exchange: 'MX2.Example.com.' }, { priority: 10, exchange: 'mx1.example.com' }, { priority: 10, exchange: 'a.example.com' }])).toBe('10 a.example.com, 10 mx1.example.com, 20 mx2.example.com');
    expect(formatMx([{ priority: 0, exchange: '.' }])).toBe('0 .');
    expect(formatMx([])).toBeNull();
  });

  it('addresses: canonical (RFC 5952) and in numeric order, IPv4 first', () => {
    expect(canonicalIp('2001:DB8:0:0:0:0:0:1')).toBe('2001:db8::1');
    expect(formatIps(['10.0.0.20', '10.0.0.3', '2001:db8::1', '9.255.0.1', '2001:DB8::1'])).toBe('9.255.0.1, 10.0.0.3, 10.0.0.20, 2001:db8::1');
    expect(formatIps(['2001:db8::10', '2001:db8::9', '::1'])).toBe('::1, 2001:db8::9, 2001:db8::10');
    expect(formatIps([])).toBeNull();
  });

  it('records: sorted, one per line, duplicates once', () => {
    expect(formatRecords(['v=spf1 -all', 'b=2', 'a=1', 'a=1'])).toBe('a=1\nb=2\nv=spf1 -all');
    expect(formatRecords([])).toBeNull();
  });

  it('SOA in zone-file order, SRV and PTR sorted', () => {
    expect(formatSoa({ mname: 'NS1.example.com.', rname: 'hostmaster.example.com', serial: 7, refresh: 1, retry: 2, expire: 3, minimum: 4 })).toBe('ns1.example.com hostmaster.example.com 7 1 2 3 4');
    expect(formatSoa(undefined)).toBeNull();
    expect(
      formatSrv([
        { service: '_sip._tls', priority: 100, weight: 1, port: 443, target: 'sip.example.com.' },
        { service: '_autodiscover._tcp', priority: 10, weight: 0, port: 443, target: 'b.example.com' },
        { service: '_autodiscover._tcp', priority: 2, weight: 0, port: 443, target: 'a.example.com' },
      ]),
    ).toBe('_autodiscover._tcp 2 0 443 a.example.com, _autodiscover._tcp 10 0 443 b.example.com, _sip._tls 100 1 443 sip.example.com');
    expect(formatPtr([{ ip: '10.0.0.20', name: 'b.example.com.' }, { ip: '10.0.0.3', name: 'a.example.com' }])).toBe('10.0.0.3 a.example.com, 10.0.0.20 b.example.com');
  });

  it('lists: code-point order, independent of locale', () => {
    expect(joinSorted(['b', 'B', 'a', 'a'])).toBe('B, a, b');
    expect(hostName('.')).toBe('.');
  });
});
