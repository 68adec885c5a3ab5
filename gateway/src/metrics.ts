import { Counter, Gauge, type Registry } from 'prom-client';

// Metric names of the gateway in one place. Labels are bounded: route templates, modes, kinds and
// error codes, never a key, an address or a job id.
export const GATEWAY_METRICS = {
  jobsCreated: 'gateway_jobs_created_total',
  itemsAccepted: 'gateway_items_accepted_total',
  creditsCharged: 'gateway_credits_charged_total',
  errors: 'gateway_errors_total',
  idempotentReplays: 'gateway_idempotent_replays_total',
  longPolls: 'gateway_long_polls_waiting',
} as const;

export interface GatewayMetrics {
  jobsCreated: Counter<'kind' | 'mode'>;
  itemsAccepted: Counter<'kind' | 'mode'>;
  creditsCharged: Counter;
  errors: Counter<'code'>;
  idempotentReplays: Counter;
}

export function createGatewayMetrics(registry: Registry, longPolls: () => number): GatewayMetrics {
  new Gauge({ name: GATEWAY_METRICS.longPolls, help: 'Requests waiting on verify.done', registers: [registry], collect() { this.set(longPolls()); } });
  return {
    jobsCreated: new Counter({ name: GATEWAY_METRICS.jobsCreated, help: 'Jobs created, by kind and mode', labelNames: ['kind', 'mode'] as const, registers: [registry] }),
    itemsAccepted: new Counter({ name: GATEWAY_METRICS.itemsAccepted, help: 'Items accepted into jobs', labelNames: ['kind', 'mode'] as const, registers: [registry] }),
    creditsCharged: new Counter({ name: GATEWAY_METRICS.creditsCharged, help: 'Credits taken at job creation', registers: [registry] }),
    errors: new Counter({ name: GATEWAY_METRICS.errors, help: 'Problem responses by code', labelNames: ['code'] as const, registers: [registry] }),
    idempotentReplays: new Counter({ name: GATEWAY_METRICS.idempotentReplays, help: 'Responses replayed for a repeated Idempotency-Key', registers: [registry] }),
  };
}
