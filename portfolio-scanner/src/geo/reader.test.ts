import { copyFileSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '@dv/runtime';
import { ipToBigInt } from './ip.ts';
import { createGeoMetrics, GEO_METRICS } from './metrics.ts';
import { writeMmdb, type MmdbRange } from './mmdb-writer.ts';
import { GeoDatabaseError, openGeo, type GeoReader } from './reader.ts';

const log = createLogger('geo-test', 'silent');
const dir = mkdtempSync(join(tmpdir(), 'geo-reader-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const range = (from: string, to: string, data: MmdbRange['data']): MmdbRange => ({ start: ipToBigInt(from) as bigint, end: ipToBigInt(to) as bigint, data });
// Documentation ranges (203.0.113.0/24, 2001:db8::/32) are special-purpose and never looked up,
// so the fixtures use public ranges with made-up records.
const CITY_V1 = [
  range('8.8.8.0', '8.8.8.255', { country: 'x' }),
  range('9.9.9.0', '9.9.9.255', { country_code: 'ch', state1: 'Zurich', city: 'Zurich', latitude: 47.37, longitude: 8.54 }),
  range('2a00:1450::', '2a00:1450:ffff:ffff:ffff:ffff:ffff:ffff', { country_code: 'IE', city: 'Dublin', latitude: 53.35, longitude: -6.26 }),
];
const CITY_V2 = [range('9.9.9.0', '9.9.9.255', { country_code: 'DE', city: 'Berlin', latitude: 52.52, longitude: 13.4 })];
const ASN = [
  range('9.9.9.0', '9.9.9.255', { autonomous_system_number: 19281, autonomous_system_organization: 'Quad9' }),
  range('2a00:1450::', '2a00:1450:ffff:ffff:ffff:ffff:ffff:ffff', { autonomous_system_number: 15169, autonomous_system_organization: 'Google LLC' }),
];
const V4_ONLY = [range('1.2.3.0', '1.2.3.255', { placeholder: 1 })];

function writeDb(name: string, ranges: MmdbRange[], ipVersion: 4 | 6 = 6): string {
  const path = join(dir, name);
  writeFileSync(path, writeMmdb({ ipVersion, databaseType: name, ranges }));
  return path;
}

function counts(registry: Registry): Promise<Record<string, number>> {
  return registry.getSingleMetric(GEO_METRICS.lookups)!.get().then((m) => Object.fromEntries(m.values.map((v) => [String(v.labels.result), v.value])));
}

describe('openGeo over small databases', () => {
  let geo: GeoReader;
  let registry: Registry;
  let cityPath: string;
  beforeAll(async () => {
    cityPath = writeDb('city.mmdb', CITY_V1);
    const asnPath = writeDb('asn.mmdb', ASN);
    registry = new Registry();
    geo = await openGeo({ cityPaths: [cityPath], asnPaths: [asnPath], reloadCheckIntervalMs: 50, log, metrics: createGeoMetrics(registry) });
  });
  afterAll(() => geo.close());

  it('merges the location and ASN records of an IPv4 address', () => {
    expect(geo.lookup('9.9.9.9')).toEqual({ country: 'CH', region: 'Zurich', city: 'Zurich', lat: 47.37, lon: 8.54, asn: 'AS19281', asn_name: 'Quad9' });
  });

  it('answers IPv6 addresses, in any spelling', () => {
    const want = { country: 'IE', region: null, city: 'Dublin', lat: 53.35, lon: -6.26, asn: 'AS15169', asn_name: 'Google LLC' };
    expect(geo.lookup('2a00:1450:4001:82a::200e')).toEqual(want);
    expect(geo.lookup('2A00:1450:4001:082A:0:0:0:200E')).toEqual(want);
  });

  it('gives nulls for fields a record lacks or holds in a wrong type, and for unknown public addresses', () => {
    expect(geo.lookup('8.8.8.8')).toEqual({ country: null, region: null, city: null, lat: null, lon: null, asn: null, asn_name: null });
    expect(geo.lookup('100.0.0.1')).toEqual({ country: null, region: null, city: null, lat: null, lon: null, asn: null, asn_name: null });
  });

  it.each(['10.1.2.3', '127.0.0.1', '192.168.1.1', '172.16.0.1', '169.254.1.1', '100.64.0.1', '0.0.0.0', '::1', 'fe80::1', 'fd00::1', '::ffff:9.9.9.9', '2001:db8::1'])(
    'gives all nulls without a lookup for the special-purpose address %s',
    (ip) => {
      expect(geo.lookup(ip)).toEqual({ country: null, region: null, city: null, lat: null, lon: null, asn: null, asn_name: null });
    },
  );

  it('returns null for what is not an IP address', () => {
    expect(geo.lookup('mail.example.com')).toBeNull();
    expect(geo.lookup('')).toBeNull();
    expect(geo.lookup('9.9.9.9/24')).toBeNull();
  });

  it('counts lookups by result', async () => {
    const before = await counts(registry);
    geo.lookup('9.9.9.9');
    geo.lookup('100.0.0.1');
    geo.lookup('10.0.0.1');
    const after = await counts(registry);
    expect((after.hit ?? 0) - (before.hit ?? 0)).toBe(1);
    expect((after.miss ?? 0) - (before.miss ?? 0)).toBe(1);
    expect((after.special ?? 0) - (before.special ?? 0)).toBe(1);
  });

  it('swaps in a replaced file, and keeps the previous one when the new file is corrupt', async () => {
    expect(geo.lookup('9.9.9.9')?.city).toBe('Zurich');
    // Replaced by rename, as deploy tools do: the reader must notice the new inode.
    const next = writeDb('city.next.mmdb', CITY_V2);
    renameSync(next, cityPath);
    await expect.poll(() => geo.lookup('9.9.9.9')?.city, { timeout: 5_000, interval: 25 }).toBe('Berlin');
    expect(geo.lookup('9.9.9.9')).toMatchObject({ country: 'DE', asn: 'AS19281' });
    expect(geo.lookup('2a00:1450::1')?.country).toBeNull();

    writeFileSync(cityPath, Buffer.from('not a maxmind database at all'));
    await expect.poll(async () => (await registry.getSingleMetric(GEO_METRICS.reloads)!.get()).values.find((v) => v.labels.outcome === 'failed')?.value ?? 0, { timeout: 5_000, interval: 25 }).toBe(1);
    expect(geo.lookup('9.9.9.9')?.city).toBe('Berlin');

    // Rewritten in place (same inode): the new size and mtime are enough.
    writeFileSync(cityPath, writeMmdb({ ipVersion: 6, databaseType: 'city', ranges: CITY_V1 }));
    await expect.poll(() => geo.lookup('9.9.9.9')?.city, { timeout: 5_000, interval: 25 }).toBe('Zurich');
  });

  it('keeps serving while a file is briefly missing', async () => {
    const moved = `${cityPath}.away`;
    renameSync(cityPath, moved);
    await new Promise((r) => setTimeout(r, 150));
    expect(geo.lookup('9.9.9.9')?.city).toBe('Zurich');
    renameSync(moved, cityPath);
  });
});

describe('openGeo with several files', () => {
  it('tries files in order (the first with a record wins) and skips IPv4-only files for IPv6 addresses', async () => {
    const v4 = join(dir, 'v4-only.mmdb');
    writeFileSync(v4, writeMmdb({ ipVersion: 4, databaseType: 'v4', ranges: V4_ONLY }));
    const v6 = writeDb('v6.mmdb', [
      range('1.2.3.0', '1.2.3.255', { country_code: 'ZZ' }),
      range('5.5.5.0', '5.5.5.255', { country_code: 'YY' }),
      range('2a00:1450::', '2a00:1450:ffff:ffff:ffff:ffff:ffff:ffff', { country_code: 'IE' }),
    ]);
    const geo = await openGeo({ cityPaths: [v4, v6], asnPaths: [], reloadCheckIntervalMs: 0, log, metrics: createGeoMetrics(new Registry()) });
    try {
      expect(geo.lookup('2a00:1450::1')?.country).toBe('IE');
      // The first file holds a record (without a country) for 1.2.3.4, so the second is not asked.
      expect(geo.lookup('1.2.3.4')?.country).toBeNull();
      expect(geo.lookup('5.5.5.5')?.country).toBe('YY');
    } finally {
      geo.close();
    }
  });

  it('fails at start with a clear error for a missing file', async () => {
    const missing = join(dir, 'nope.mmdb');
    await expect(openGeo({ cityPaths: [missing], asnPaths: [], reloadCheckIntervalMs: 0, log, metrics: createGeoMetrics(new Registry()) })).rejects.toThrow(GeoDatabaseError);
    await expect(openGeo({ cityPaths: [missing], asnPaths: [], reloadCheckIntervalMs: 0, log, metrics: createGeoMetrics(new Registry()) })).rejects.toThrow(/city database ".*nope\.mmdb"/);
  });

  it('fails at start with a clear error for a corrupt or truncated file', async () => {
    const junk = join(dir, 'junk.mmdb');
    writeFileSync(junk, Buffer.alloc(4096, 7));
    await expect(openGeo({ cityPaths: [], asnPaths: [junk], reloadCheckIntervalMs: 0, log, metrics: createGeoMetrics(new Registry()) })).rejects.toThrow(/asn database ".*junk\.mmdb"/);
    const truncated = join(dir, 'truncated.mmdb');
    copyFileSync(writeDb('whole.mmdb', ASN), truncated);
    const whole = writeMmdb({ ipVersion: 6, databaseType: 'asn', ranges: ASN });
    writeFileSync(truncated, whole.subarray(0, whole.length - 40));
    await expect(openGeo({ cityPaths: [], asnPaths: [truncated], reloadCheckIntervalMs: 0, log, metrics: createGeoMetrics(new Registry()) })).rejects.toThrow(GeoDatabaseError);
  });
});
