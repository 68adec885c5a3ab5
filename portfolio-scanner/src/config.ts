import { z } from 'zod';
import { env, serviceSchema } from '@dv/runtime';
import { PORTFOLIO_DEFAULTS } from './defaults.ts';
import { geoPaths } from './geo/config.ts';

export const portfolioConfigSchema = z.object({
  ...serviceSchema(PORTFOLIO_DEFAULTS.port),
  DNS_SERVERS: env.hostPorts(),
  RDAP_BOOTSTRAP_URL: env.url(['http:', 'https:']).optional(),
  // Comma-separated mmdb paths, tried in order (e.g. an IPv4 and an IPv6 file); empty = the packaged defaults.
  PORTFOLIO_GEO_CITY_MMDB: geoPaths(),
  PORTFOLIO_GEO_ASN_MMDB: geoPaths(),
  PORTFOLIO_GEO_CACHE_DIR: z.string().default(PORTFOLIO_DEFAULTS.geoCacheDir),
  PORTFOLIO_GEO_RELOAD_CHECK_INTERVAL_MS: env.int(PORTFOLIO_DEFAULTS.geoReloadCheckIntervalMs, 100),
});
export type PortfolioConfig = z.infer<typeof portfolioConfigSchema>;
