import { Counter, type Registry } from 'prom-client';

// Metric names of the geolocation reader. Labels are bounded: result and outcome from the closed
// lists below, database is "city" or "asn"; never an address.
export const GEO_METRICS = {
  lookups: 'portfolio_geo_lookups_total',
  reloads: 'portfolio_geo_reloads_total',
} as const;

/** hit: some field found; miss: a public address neither database knows; special: private, loopback… (not looked up). */
export const GEO_LOOKUP_RESULTS = ['hit', 'miss', 'special'] as const;
export type GeoLookupResult = (typeof GEO_LOOKUP_RESULTS)[number];

export interface GeoMetrics {
  lookups: Counter<'result'>;
  reloads: Counter<'database' | 'outcome'>;
}

export function createGeoMetrics(registry: Registry): GeoMetrics {
  return {
    lookups: new Counter({ name: GEO_METRICS.lookups, help: 'IP geolocation lookups, by result (hit, miss, special)', labelNames: ['result'], registers: [registry] }),
    reloads: new Counter({ name: GEO_METRICS.reloads, help: 'Database files reopened after they changed on disk, by database (city, asn) and outcome (ok, failed: the previous file stays in use)', labelNames: ['database', 'outcome'], registers: [registry] }),
  };
}
