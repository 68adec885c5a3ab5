import { Counter, type Registry } from 'prom-client';

// Metric names of the registration refresher. Labels are bounded: server is an RDAP base host of
// the bootstrap table (the only hosts requests may go to), status an HTTP status code, "timeout" or
// "error"; outcome from the closed list below. Never a domain.
export const REGISTRATION_METRICS = {
  rdapRequests: 'portfolio_rdap_requests_total',
  refreshes: 'portfolio_whois_refreshes_total',
} as const;

/** found / not_registered: stored; failed: no source answered; deferred: the RDAP server backs off or is busy. */
export const REFRESH_OUTCOMES = ['found', 'not_registered', 'failed', 'deferred'] as const;
export type RefreshOutcome = (typeof REFRESH_OUTCOMES)[number];

export interface RegistrationMetrics {
  rdapRequests: Counter<'server' | 'status'>;
  refreshes: Counter<'outcome'>;
}

export function createRegistrationMetrics(registry: Registry): RegistrationMetrics {
  return {
    rdapRequests: new Counter({ name: REGISTRATION_METRICS.rdapRequests, help: 'RDAP requests sent, by server (RDAP base host) and status (HTTP code, timeout, error)', labelNames: ['server', 'status'], registers: [registry] }),
    refreshes: new Counter({ name: REGISTRATION_METRICS.refreshes, help: 'Registration-data refreshes, by outcome (found, not_registered, failed, deferred)', labelNames: ['outcome'], registers: [registry] }),
  };
}
