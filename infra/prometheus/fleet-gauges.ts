// Gauges whose value is a fleet-wide figure that every replica of its service reports alike (issue
// 19): the scheduler's queue depth (JetStream pending + parked items in MongoDB), its view of the
// probe fleet (heartbeats every replica hears), the load level and ETAs computed from those, the
// finished-items rate (shared Redis counters), and the portfolio queue gauges every role reports.
// Summed over N replicas they read N times too high, so every rule and panel takes max (or min).
export const FLEET_GAUGES = [
  'scheduler_queue_depth',
  'scheduler_throughput_items_per_second',
  'scheduler_probe_capacity',
  'scheduler_load_level',
  'scheduler_expected_seconds',
  'scheduler_no_probe_capacity',
  'portfolio_queue_lag_seconds',
  'portfolio_domains_overdue',
] as const;

/** An aggregation that reads a fleet-wide gauge right: max or min, with or without `by`/`without`. */
const RIGHT = /\b(max|min)\s*(?:(?:by|without)\s*\([^()]*\)\s*)?\(\s*$/;

/** The fleet gauges `expr` uses without a max/min around them (a sum, an avg, or none at all). */
export function fleetGaugeMisuse(expr: string): string[] {
  const wrong: string[] = [];
  for (const gauge of FLEET_GAUGES) {
    // Recording rules (`priority:scheduler_queue_depth:max`) are already aggregated: skipped.
    const re = new RegExp(`(?<![A-Za-z0-9_:])${gauge}(?![A-Za-z0-9_:])`, 'g');
    for (const m of expr.matchAll(re)) {
      if (!RIGHT.test(expr.slice(0, m.index))) wrong.push(gauge);
    }
  }
  return [...new Set(wrong)];
}
