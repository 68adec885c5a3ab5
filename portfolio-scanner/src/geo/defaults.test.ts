// The databases the service runs with when nothing is configured: the country file shipped in
// @ip-location-db/geo-whois-asn-country-mmdb and the ASN file built from @ip-location-db/asn.
// Assertions stay to what those data sets say and will keep saying (big, stable networks).
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '@dv/runtime';
import { portfolioConfigSchema } from '../config.ts';
import { ensureAsnMmdb } from './asn-db.ts';
import { defaultCityMmdbPath } from './config.ts';
import { openGeoFromConfig, type GeoReader } from './reader.ts';

const cacheDir = mkdtempSync(join(tmpdir(), 'geo-defaults-'));
afterAll(() => rmSync(cacheDir, { recursive: true, force: true }));

describe('the packaged databases', () => {
  let geo: GeoReader;
  beforeAll(async () => {
    const config = portfolioConfigSchema.parse({ PORTFOLIO_GEO_CACHE_DIR: cacheDir });
    geo = await openGeoFromConfig(config, { registry: new Registry(), log: createLogger('geo-test', 'silent') });
  }, 120_000);
  afterAll(() => geo.close());

  it('knows the ASN and country of well-known IPv4 resolvers', () => {
    expect(geo.lookup('8.8.8.8')).toMatchObject({ asn: 'AS15169', country: 'US' });
    expect(geo.lookup('8.8.8.8')?.asn_name).toMatch(/google/i);
    expect(geo.lookup('1.1.1.1')).toMatchObject({ asn: 'AS13335', asn_name: expect.stringMatching(/cloudflare/i) });
    expect(geo.lookup('1.1.1.1')?.country).toMatch(/^[A-Z]{2}$/);
  });

  it('knows IPv6 addresses too', () => {
    expect(geo.lookup('2001:4860:4860::8888')).toMatchObject({ asn: 'AS15169', country: 'US' });
    expect(geo.lookup('2606:4700:4700::1111')).toMatchObject({ asn: 'AS13335' });
  });

  it('has no city-level data by default (country-level database)', () => {
    expect(geo.lookup('8.8.8.8')).toMatchObject({ region: null, city: null, lat: null, lon: null });
  });

  it('gives nulls for private and loopback addresses', () => {
    for (const ip of ['10.0.0.1', '127.0.0.1', '::1']) expect(geo.lookup(ip)).toEqual({ country: null, region: null, city: null, lat: null, lon: null, asn: null, asn_name: null });
  });

  it('builds the ASN file once and reuses it', async () => {
    const path = await ensureAsnMmdb(cacheDir);
    expect(existsSync(path)).toBe(true);
    const mtime = statSync(path).mtimeMs;
    expect(await ensureAsnMmdb(cacheDir)).toBe(path);
    expect(statSync(path).mtimeMs).toBe(mtime);
  });
});

describe('geo configuration', () => {
  it('rejects a database path that does not exist, naming it', () => {
    const result = portfolioConfigSchema.safeParse({ PORTFOLIO_GEO_CITY_MMDB: '/nonexistent/city.mmdb' });
    expect(result.success).toBe(false);
    expect(JSON.stringify(result.error?.issues)).toContain('/nonexistent/city.mmdb');
  });

  it('accepts comma-separated lists of files (not folders) and an interval in milliseconds', () => {
    const file = defaultCityMmdbPath();
    expect(portfolioConfigSchema.safeParse({ PORTFOLIO_GEO_ASN_MMDB: cacheDir }).success).toBe(false);
    const config = portfolioConfigSchema.parse({ PORTFOLIO_GEO_ASN_MMDB: ` ${file} , ${file}`, PORTFOLIO_GEO_RELOAD_CHECK_INTERVAL_MS: '2500' });
    expect(config.PORTFOLIO_GEO_ASN_MMDB).toEqual([file, file]);
    expect(config.PORTFOLIO_GEO_RELOAD_CHECK_INTERVAL_MS).toBe(2500);
    expect(portfolioConfigSchema.safeParse({ PORTFOLIO_GEO_RELOAD_CHECK_INTERVAL_MS: '10' }).success).toBe(false);
  });
});
