// GeoLookup over MaxMind-format files: location (city or country) and ASN, each a list of files
// tried in order, so one combined file or an IPv4 and an IPv6 file both work. Files are held in
// memory (a lookup is a synchronous tree walk, no I/O) and swapped when they change on disk.
import { readFileSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { isIP } from 'node:net';
import { Reader } from 'maxmind';
import type { Registry } from 'prom-client';
import { isSpecialPurposeIp } from '@dv/mailsec';
import type { Logger } from '@dv/runtime';
import { ensureAsnMmdb } from './asn-db.ts';
import { defaultCityMmdbPath, geoCacheDir, type GeoConfig } from './config.ts';
import { createGeoMetrics, type GeoMetrics } from './metrics.ts';
import { asnFields, EMPTY_GEO, locationFields } from './record.ts';
import type { GeoInfo, GeoLookup } from './types.ts';

export type GeoDatabase = 'city' | 'asn';

export interface GeoOptions {
  /** Location databases (GeoIP2/GeoLite2 City or Country, or @ip-location-db city/country files). */
  cityPaths: readonly string[];
  /** ASN databases (GeoLite2-ASN layout: autonomous_system_number, autonomous_system_organization). */
  asnPaths: readonly string[];
  /** How often each file is stat'ed for a change; 0 turns reloading off. */
  reloadCheckIntervalMs: number;
  log: Logger;
  metrics: GeoMetrics;
}

export interface GeoReader extends GeoLookup {
  /** Stops watching the files (lookups keep working on what is loaded). */
  close(): void;
}

/** A database file could not be opened: missing, unreadable or not a MaxMind DB. */
export class GeoDatabaseError extends Error {
  override name = 'GeoDatabaseError';
}

interface LoadedFile {
  readonly database: GeoDatabase;
  readonly path: string;
  reader: Reader<Record<string, unknown>>;
  ipVersion: number;
  /** What the last stat said, to tell a changed file (replaced by rename or rewritten) from an unchanged one. */
  stamp: string;
}

const stampOf = (s: { mtimeMs: number; size: number; ino: number }): string => `${s.mtimeMs}:${s.size}:${s.ino}`;

function load(database: GeoDatabase, path: string): Pick<LoadedFile, 'reader' | 'ipVersion'> {
  try {
    const reader = new Reader<Record<string, unknown>>(readFileSync(path));
    const ipVersion = reader.metadata.ipVersion;
    if (ipVersion !== 4 && ipVersion !== 6) throw new Error(`unsupported ip_version ${String(ipVersion)}`);
    return { reader, ipVersion };
  } catch (err) {
    throw new GeoDatabaseError(`cannot open the ${database} database "${path}": ${(err as Error).message}`);
  }
}

/** Opens every file (throwing GeoDatabaseError for the first that fails) and starts watching them. */
export async function openGeo(opts: GeoOptions): Promise<GeoReader> {
  const files: LoadedFile[] = [];
  for (const [database, paths] of [['city', opts.cityPaths], ['asn', opts.asnPaths]] as const) {
    for (const path of paths) {
      const s = await stat(path).catch((err: Error) => {
        throw new GeoDatabaseError(`cannot open the ${database} database "${path}": ${err.message}`);
      });
      files.push({ database, path, ...load(database, path), stamp: stampOf(s) });
    }
  }
  const city = files.filter((f) => f.database === 'city');
  const asn = files.filter((f) => f.database === 'asn');

  let checking = false;
  const check = async (): Promise<void> => {
    if (checking) return;
    checking = true;
    try {
      for (const file of files) {
        let stamp: string;
        try {
          stamp = stampOf(await stat(file.path));
        } catch (err) {
          // Mid-replacement or removed: keep serving the loaded copy and look again next time.
          opts.log.warn({ database: file.database, path: file.path, err: (err as Error).message }, 'geo database file unavailable; keeping the loaded one');
          continue;
        }
        if (stamp === file.stamp) continue;
        // The stamp is remembered even when the reload fails, so a bad file is reported once, and
        // tried again as soon as it changes.
        file.stamp = stamp;
        try {
          Object.assign(file, load(file.database, file.path));
          opts.metrics.reloads.inc({ database: file.database, outcome: 'ok' });
          opts.log.info({ database: file.database, path: file.path }, 'geo database reloaded');
        } catch (err) {
          opts.metrics.reloads.inc({ database: file.database, outcome: 'failed' });
          opts.log.error({ database: file.database, path: file.path, err: (err as Error).message }, 'geo database changed but cannot be read; keeping the previous one');
        }
      }
    } finally {
      checking = false;
    }
  };
  const timer = opts.reloadCheckIntervalMs > 0 ? setInterval(() => void check(), opts.reloadCheckIntervalMs) : undefined;
  timer?.unref();

  const first = (list: readonly LoadedFile[], ip: string, family: number): Record<string, unknown> | null => {
    for (const f of list) {
      if (family === 6 && f.ipVersion === 4) continue;
      const rec = f.reader.get(ip);
      if (rec !== null) return rec;
    }
    return null;
  };

  return {
    lookup(ip: string): GeoInfo | null {
      const family = isIP(ip);
      if (family === 0) return null;
      if (isSpecialPurposeIp(ip)) {
        opts.metrics.lookups.inc({ result: 'special' });
        return { ...EMPTY_GEO };
      }
      const info: GeoInfo = { ...locationFields(first(city, ip, family)), ...asnFields(first(asn, ip, family)) };
      const hit = Object.values(info).some((v) => v !== null);
      opts.metrics.lookups.inc({ result: hit ? 'hit' : 'miss' });
      return info;
    },
    close(): void {
      if (timer !== undefined) clearInterval(timer);
    },
  };
}

/**
 * The reader the service runs with: configured paths, or the packaged defaults (the country file
 * from its npm package, the ASN file built once from the CSV package into the cache folder).
 */
export async function openGeoFromConfig(config: GeoConfig, deps: { registry: Registry; log: Logger }): Promise<GeoReader> {
  const cityPaths = config.PORTFOLIO_GEO_CITY_MMDB.length > 0 ? config.PORTFOLIO_GEO_CITY_MMDB : [defaultCityMmdbPath()];
  const asnPaths = config.PORTFOLIO_GEO_ASN_MMDB.length > 0 ? config.PORTFOLIO_GEO_ASN_MMDB : [await ensureAsnMmdb(geoCacheDir(config))];
  return openGeo({ cityPaths, asnPaths, reloadCheckIntervalMs: config.PORTFOLIO_GEO_RELOAD_CHECK_INTERVAL_MS, log: deps.log, metrics: createGeoMetrics(deps.registry) });
}
