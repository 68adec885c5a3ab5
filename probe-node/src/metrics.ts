// The probe node's metrics. Labels are bounded: provider is a row id of the provider table or
// `self_hosted` (never a domain), outcome and class come from closed lists, stage has four values.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { ProviderRow } from '@dv/verdict';

export const PROBE_METRICS = {
  sessions: 'probe_sessions_total',
  replies: 'probe_replies_total',
  sessionDuration: 'probe_session_duration_seconds',
  inFlight: 'probe_sessions_in_flight',
  connections: 'probe_connections_total',
} as const;

export interface ProbeMetrics {
  sessions: Counter<'provider' | 'outcome'>;
  replies: Counter<'provider' | 'class' | 'stage'>;
  sessionDuration: Histogram<'outcome'>;
  inFlight: Gauge;
  connections: Counter<'provider'>;
}

export function createProbeMetrics(registry: Registry): ProbeMetrics {
  return {
    sessions: new Counter({ name: PROBE_METRICS.sessions, help: 'Probe sessions by provider and outcome (busy included)', labelNames: ['provider', 'outcome'] as const, registers: [registry] }),
    replies: new Counter({
      name: PROBE_METRICS.replies,
      help: 'SMTP replies received, by provider, reply class (verdict rule table) and stage',
      labelNames: ['provider', 'class', 'stage'] as const,
      registers: [registry],
    }),
    sessionDuration: new Histogram({
      name: PROBE_METRICS.sessionDuration,
      help: 'Probe session duration in seconds, by outcome',
      labelNames: ['outcome'] as const,
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120],
      registers: [registry],
    }),
    inFlight: new Gauge({ name: PROBE_METRICS.inFlight, help: 'Probe sessions in flight', registers: [registry] }),
    connections: new Counter({ name: PROBE_METRICS.connections, help: 'TCP connections opened to MX hosts (failed attempts and reconnects included)', labelNames: ['provider'] as const, registers: [registry] }),
  };
}

/** A provider label that cannot grow without bound: self-hosted domains collapse into one value. */
export function providerLabel(row: ProviderRow): string {
  return row.kind === 'self_hosted' ? 'self_hosted' : row.id;
}
