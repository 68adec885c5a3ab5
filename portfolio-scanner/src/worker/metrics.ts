import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

// Metric names of the scan workers and the rescan planner. Other teams build alerts and dashboards
// on these names: do not rename. Labels are bounded (outcome, priority, field from closed lists);
// never a domain.
export const SCAN_METRICS = {
  scans: 'portfolio_scans_total',
  duration: 'portfolio_scan_duration_seconds',
  queueLag: 'portfolio_queue_lag_seconds',
  overdue: 'portfolio_domains_overdue',
  changes: 'portfolio_changes_total',
} as const;

/**
 * stored: a new result was stored; unchanged_slot: nothing stored because this slot was already
 * stored (a redelivery, a republish) or nobody watches the domain any more; failed: the scan or
 * its store threw, the message goes back with a delay; gave_up: failed on its last delivery (or
 * unreadable), the message is ended and the domain waits for its next slot.
 */
export const SCAN_OUTCOMES = ['stored', 'unchanged_slot', 'failed', 'gave_up'] as const;
export type ScanOutcomeLabel = (typeof SCAN_OUTCOMES)[number];

export type ScanPriority = 'priority' | 'rescan';

export interface ScanMetrics {
  scans: Counter<'outcome'>;
  duration: Histogram;
  changes: Counter<'field'>;
}

/** Created once per registry (workers of one process share them). */
const byRegistry = new WeakMap<Registry, ScanMetrics>();

export function scanMetrics(registry: Registry): ScanMetrics {
  let m = byRegistry.get(registry);
  if (!m) {
    m = {
      scans: new Counter({ name: SCAN_METRICS.scans, help: 'Scan messages handled, by outcome (stored, unchanged_slot, failed, gave_up)', labelNames: ['outcome'], registers: [registry] }),
      duration: new Histogram({
        name: SCAN_METRICS.duration,
        help: 'Duration of one domain scan (DNS lookups, not the store), in seconds',
        buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
        registers: [registry],
      }),
      changes: new Counter({ name: SCAN_METRICS.changes, help: 'Change records written, by tracked field', labelNames: ['field'], registers: [registry] }),
    };
    for (const outcome of SCAN_OUTCOMES) m.scans.inc({ outcome }, 0);
    byRegistry.set(registry, m);
  }
  return m;
}

export interface QueueFigures {
  /** Age in seconds of the oldest message waiting (or in hand) per priority; 0 when none. */
  lagS: Record<ScanPriority, number>;
  /** Monitored domains whose next_scan_at is more than 10% of the interval in the past. */
  overdue: number;
}

/**
 * The queue gauges, computed when scraped (every replica reports the same global figures:
 * aggregate with max()). `read` is called at most every `maxAgeMs`; a failed read keeps the last figures.
 */
export function registerQueueGauges(registry: Registry, read: () => Promise<QueueFigures>, maxAgeMs: number): void {
  let last: QueueFigures = { lagS: { priority: 0, rescan: 0 }, overdue: 0 };
  let readAt = 0;
  let reading: Promise<void> | null = null;
  const refresh = async (): Promise<void> => {
    if (Date.now() - readAt < maxAgeMs) return;
    reading ??= read()
      .then((f) => {
        last = f;
        readAt = Date.now();
      })
      .catch(() => undefined)
      .finally(() => {
        reading = null;
      });
    await reading;
  };
  new Gauge({
    name: SCAN_METRICS.queueLag,
    help: 'Age in seconds of the oldest scan message not yet acked, by priority (priority, rescan)',
    labelNames: ['priority'],
    registers: [registry],
    async collect() {
      await refresh();
      this.set({ priority: 'priority' }, last.lagS.priority);
      this.set({ priority: 'rescan' }, last.lagS.rescan);
    },
  });
  new Gauge({
    name: SCAN_METRICS.overdue,
    help: 'Monitored domains whose next scan is due more than 10% of the rescan interval ago (not yet published by the planner)',
    registers: [registry],
    async collect() {
      await refresh();
      this.set(last.overdue);
    },
  });
}
