// Scheduler metrics. Labels are bounded: priority, provider (the provider table's ids; self-hosted
// domains collapse to `self_hosted` so customer domains never become label values), status, reason.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { ProviderRow } from '@dv/verdict';
import type { PoisonReason } from './intake/poison-result.ts';

export const SCHEDULER_METRICS = {
  queueDepth: 'scheduler_queue_depth',
  itemsInFlight: 'scheduler_items_in_flight',
  dispatchLatency: 'scheduler_dispatch_latency_seconds',
  politenessWaits: 'scheduler_politeness_waits_total',
  greylistRetries: 'scheduler_greylist_retries_total',
  providerPauses: 'scheduler_provider_pauses_total',
  ipBlocks: 'scheduler_ip_blocks_total',
  verdicts: 'scheduler_verdicts_total',
  sessions: 'scheduler_probe_sessions_total',
  redispatches: 'scheduler_probe_redispatches_total',
  throughput: 'scheduler_throughput_items_per_second',
  probeCapacity: 'scheduler_probe_capacity',
  loadLevel: 'scheduler_load_level',
  expectedSeconds: 'scheduler_expected_seconds',
  noProbeCapacity: 'scheduler_no_probe_capacity',
  refunds: 'scheduler_refunded_items_total',
  poisonItems: 'scheduler_poison_items_total',
} as const;

export function providerLabel(row: Pick<ProviderRow, 'id' | 'kind'>): string {
  return row.kind === 'self_hosted' ? 'self_hosted' : row.id;
}

export function createSchedulerMetrics(registry: Registry) {
  const r = [registry];
  return {
    queueDepth: new Gauge({ name: SCHEDULER_METRICS.queueDepth, help: 'Items waiting, by priority (JetStream pending + parked retries)', labelNames: ['priority'] as const, registers: r }),
    itemsInFlight: new Gauge({ name: SCHEDULER_METRICS.itemsInFlight, help: 'Un-acked items held by this replica', registers: r }),
    dispatchLatency: new Histogram({
      name: SCHEDULER_METRICS.dispatchLatency,
      help: 'Seconds from intake to the probe session request, by priority',
      labelNames: ['priority'] as const,
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
      registers: r,
    }),
    politenessWaits: new Counter({ name: SCHEDULER_METRICS.politenessWaits, help: 'Batches that waited for a politeness gate, by reason', labelNames: ['reason'] as const, registers: r }),
    greylistRetries: new Counter({ name: SCHEDULER_METRICS.greylistRetries, help: 'Items parked for another attempt on the greylist ladder', labelNames: ['provider'] as const, registers: r }),
    providerPauses: new Counter({ name: SCHEDULER_METRICS.providerPauses, help: 'Provider pauses after throttling replies', labelNames: ['provider'] as const, registers: r }),
    ipBlocks: new Counter({ name: SCHEDULER_METRICS.ipBlocks, help: 'Source IPs marked blocked by a provider', labelNames: ['provider'] as const, registers: r }),
    verdicts: new Counter({ name: SCHEDULER_METRICS.verdicts, help: 'Results stored, by status and sub_status', labelNames: ['status', 'sub_status'] as const, registers: r }),
    sessions: new Counter({ name: SCHEDULER_METRICS.sessions, help: 'Probe sessions by outcome', labelNames: ['outcome'] as const, registers: r }),
    redispatches: new Counter({ name: SCHEDULER_METRICS.redispatches, help: 'Batches sent again to another probe node, by reason', labelNames: ['reason'] as const, registers: r }),
    throughput: new Gauge({ name: SCHEDULER_METRICS.throughput, help: 'Items finished per second (moving average)', registers: r }),
    probeCapacity: new Gauge({ name: SCHEDULER_METRICS.probeCapacity, help: 'Probe sessions: total capacity and in use', labelNames: ['kind'] as const, registers: r }),
    loadLevel: new Gauge({ name: SCHEDULER_METRICS.loadLevel, help: 'Load level: 0 normal, 1 busy, 2 saturated', registers: r }),
    expectedSeconds: new Gauge({ name: SCHEDULER_METRICS.expectedSeconds, help: 'Expected seconds per single check and per 1,000 list items (no value while there is no probe capacity)', labelNames: ['what'] as const, registers: r }),
    noProbeCapacity: new Gauge({ name: SCHEDULER_METRICS.noProbeCapacity, help: '1 while no probe node is alive (live checks cannot progress), else 0', registers: r }),
    refunds: new Counter({ name: SCHEDULER_METRICS.refunds, help: 'Items refunded by the deadline sweep', registers: r }),
    poisonItems: poisonCounter(r),
  };
}

/** Both reasons exported from the start (at 0), so an alert on increase() sees the first one. */
function poisonCounter(r: Registry[]): Counter<'reason'> {
  const c = new Counter({ name: SCHEDULER_METRICS.poisonItems, help: 'Items given up as terminal unknown after too many deliveries or lost probe sessions (poison-result.ts), by reason', labelNames: ['reason'] as const, registers: r });
  for (const reason of ['deliveries', 'lost_sessions'] satisfies PoisonReason[]) c.inc({ reason }, 0);
  return c;
}
export type SchedulerMetrics = ReturnType<typeof createSchedulerMetrics>;
