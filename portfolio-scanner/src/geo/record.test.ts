import { describe, expect, it } from 'vitest';
import { ipToBigInt } from './ip.ts';
import { asnFields, locationFields } from './record.ts';
import { asnRangesFromCsv, parseAsnLine } from './asn-db.ts';

describe('locationFields', () => {
  it.each([
    ['GeoIP2 City layout', { country: { iso_code: 'US' }, subdivisions: [{ names: { en: 'California', de: 'Kalifornien' } }], city: { names: { en: 'Mountain View' } }, location: { latitude: 37.4, longitude: -122.1 } }, { country: 'US', region: 'California', city: 'Mountain View', lat: 37.4, lon: -122.1 }],
    ['GeoIP2 Country layout', { country: { iso_code: 'FR' }, continent: { code: 'EU' } }, { country: 'FR', region: null, city: null, lat: null, lon: null }],
    ['ip-location-db city layout', { country_code: 'de', state1: 'Berlin', city: 'Berlin', latitude: 52.5, longitude: 13.4 }, { country: 'DE', region: 'Berlin', city: 'Berlin', lat: 52.5, lon: 13.4 }],
    ['ip-location-db country layout', { country_code: 'AU' }, { country: 'AU', region: null, city: null, lat: null, lon: null }],
    ['wrong types and blanks', { country_code: 7, city: '  ', latitude: '1.5', longitude: Number.NaN, subdivisions: [] }, { country: null, region: null, city: null, lat: null, lon: null }],
    ['no record', null, { country: null, region: null, city: null, lat: null, lon: null }],
    ['an ASN record in the location slot', { autonomous_system_number: 1 }, { country: null, region: null, city: null, lat: null, lon: null }],
  ])('%s', (_name, record, want) => {
    expect(locationFields(record)).toEqual(want);
  });
});

describe('asnFields', () => {
  it.each([
    [{ autonomous_system_number: 15169, autonomous_system_organization: 'Google LLC' }, { asn: 'AS15169', asn_name: 'Google LLC' }],
    [{ autonomous_system_number: 13335 }, { asn: 'AS13335', asn_name: null }],
    [{ autonomous_system_number: '13335', autonomous_system_organization: '' }, { asn: null, asn_name: null }],
    [{ autonomous_system_number: 1.5 }, { asn: null, asn_name: null }],
    [null, { asn: null, asn_name: null }],
    [{ country_code: 'US' }, { asn: null, asn_name: null }],
  ])('%j', (record, want) => {
    expect(asnFields(record)).toEqual(want);
  });
});

describe('ipToBigInt', () => {
  it.each([
    ['0.0.0.0', 0n],
    ['8.8.8.8', 0x08080808n],
    ['255.255.255.255', 0xffffffffn],
    ['::', 0n],
    ['::1', 1n],
    ['2001:db8::', 0x20010db8n << 96n],
    ['2001:DB8:0:0:0:0:0:1', (0x20010db8n << 96n) + 1n],
    ['::ffff:1.2.3.4', (0xffffn << 32n) + 0x01020304n],
    ['fe80::1:2', (0xfe80n << 112n) + (1n << 16n) + 2n],
  ])('%s', (ip, want) => {
    expect(ipToBigInt(ip)).toBe(want);
  });

  it.each(['', 'x', '1.2.3', '1.2.3.256', '::g', '1.2.3.4/24'])('rejects %j', (ip) => {
    expect(ipToBigInt(ip)).toBeNull();
  });
});

describe('the ASN CSV', () => {
  it('parses plain and quoted organisations', () => {
    expect(parseAsnLine('1.0.0.0,1.0.0.255,13335,"Cloudflare, Inc."')).toEqual({ start: '1.0.0.0', end: '1.0.0.255', asn: 13335, org: 'Cloudflare, Inc.' });
    expect(parseAsnLine('1.0.4.0,1.0.7.255,38803,Gtelecom Pty Ltd')).toMatchObject({ asn: 38803, org: 'Gtelecom Pty Ltd' });
    expect(parseAsnLine('2.0.0.0,2.0.0.255,1,"The ""Quoted"" Co"\r')).toMatchObject({ org: 'The "Quoted" Co' });
  });

  it.each(['', 'garbage', '1.0.0.0,1.0.0.255', '1.0.0.0,1.0.0.255,AS1,x', '1.0.0.0,1.0.0.255,-1,x'])('skips the malformed line %j', (line) => {
    expect(parseAsnLine(line)).toBeNull();
  });

  it('sorts rows and clips overlaps so the earlier row wins', () => {
    const csv = ['5.0.0.0,5.0.0.255,3,C', '1.0.0.0,1.0.0.255,1,A', '1.0.0.128,1.0.1.255,2,B', '1.0.0.10,1.0.0.20,9,Inside', 'bad,row,1,x', '9.0.0.0,8.0.0.0,4,Backwards'].join('\n');
    expect(asnRangesFromCsv(csv).map((r) => [r.start, r.end, r.data.autonomous_system_number])).toEqual([
      [ipToBigInt('1.0.0.0'), ipToBigInt('1.0.0.255'), 1],
      [ipToBigInt('1.0.1.0'), ipToBigInt('1.0.1.255'), 2],
      [ipToBigInt('5.0.0.0'), ipToBigInt('5.0.0.255'), 3],
    ]);
  });
});
