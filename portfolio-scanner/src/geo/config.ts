// Validation and resolution of the database paths, kept beside the reader so config.ts stays a list.
import { accessSync, constants, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { PORTFOLIO_DEFAULTS } from '../defaults.ts';

/** Comma-separated mmdb paths that must exist and be readable at start (a typo fails fast, not at the first scan). */
export const geoPaths = () =>
  z
    .string()
    .default('')
    .transform((v, ctx) => {
      const items = v.split(',').map((s) => s.trim()).filter(Boolean);
      for (const item of items) {
        try {
          if (!statSync(item).isFile()) throw new Error('not a file');
          accessSync(item, constants.R_OK);
        } catch {
          ctx.addIssue({ code: 'custom', message: `"${item}" is not a readable file` });
        }
      }
      return items;
    });

export interface GeoConfig {
  PORTFOLIO_GEO_CITY_MMDB: string[];
  PORTFOLIO_GEO_ASN_MMDB: string[];
  PORTFOLIO_GEO_CACHE_DIR: string;
  PORTFOLIO_GEO_RELOAD_CHECK_INTERVAL_MS: number;
}

/** The packaged country database's path (resolved where npm installed it). */
export function defaultCityMmdbPath(): string {
  return createRequire(import.meta.url).resolve(PORTFOLIO_DEFAULTS.geoCityMmdbDefault);
}

export function geoCacheDir(config: Pick<GeoConfig, 'PORTFOLIO_GEO_CACHE_DIR'>): string {
  return config.PORTFOLIO_GEO_CACHE_DIR === '' ? join(tmpdir(), 'dv-portfolio-geo') : config.PORTFOLIO_GEO_CACHE_DIR;
}
