import { Counter, Histogram, type Registry } from 'prom-client';

// Metric names of the lookup service in one place. Labels are bounded: tool (8 names), surface
// (rest|mcp), outcome and tier from the closed lists below; never a domain, IP or key.
export const LOOKUP_METRICS = {
  lookups: 'lookup_lookups_total',
  cacheHits: 'lookup_cache_hits_total',
  quotaRefusals: 'lookup_quota_refusals_total',
  engineDuration: 'lookup_engine_duration_seconds',
  keyRequests: 'lookup_key_requests_total',
  keysIssued: 'lookup_keys_issued_total',
} as const;

export const LOOKUP_OUTCOMES = ['live', 'cached', 'invalid_target', 'quota_exhausted', 'error'] as const;
export type LookupOutcome = (typeof LOOKUP_OUTCOMES)[number];
export type Surface = 'rest' | 'mcp' | 'web';

export interface LookupMetrics {
  lookups: Counter<'tool' | 'surface' | 'outcome'>;
  cacheHits: Counter<'tool'>;
  quotaRefusals: Counter<'tier'>;
  engineDuration: Histogram<'tool'>;
  keyRequests: Counter<'outcome'>;
  keysIssued: Counter;
}

export function createLookupMetrics(registry: Registry): LookupMetrics {
  return {
    lookups: new Counter({ name: LOOKUP_METRICS.lookups, help: 'Lookups answered, by tool, surface and outcome (live, cached, invalid_target, quota_exhausted, error)', labelNames: ['tool', 'surface', 'outcome'], registers: [registry] }),
    cacheHits: new Counter({ name: LOOKUP_METRICS.cacheHits, help: 'Lookups answered from the response cache (not counted against quotas)', labelNames: ['tool'], registers: [registry] }),
    quotaRefusals: new Counter({ name: LOOKUP_METRICS.quotaRefusals, help: 'Lookups refused because the daily allowance was used up, by tier', labelNames: ['tier'], registers: [registry] }),
    engineDuration: new Histogram({ name: LOOKUP_METRICS.engineDuration, help: 'Time the mailsec engine took for a live lookup, by tool', labelNames: ['tool'], buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20], registers: [registry] }),
    keyRequests: new Counter({ name: LOOKUP_METRICS.keyRequests, help: 'Free-key requests, by outcome (sent, rate_limited, mail_failed, disabled)', labelNames: ['outcome'], registers: [registry] }),
    keysIssued: new Counter({ name: LOOKUP_METRICS.keysIssued, help: 'Free keys issued through a verification link', registers: [registry] }),
  };
}
