import { describe, expect, it } from 'vitest';
import { DASHBOARDS } from '../grafana/dashboards.ts';
import { FLEET_GAUGES, fleetGaugeMisuse } from './fleet-gauges.ts';
import { loadRules } from './rules.ts';

describe('fleet-wide gauges', () => {
  it('every rule and dashboard query reads them with max or min, never a sum over replicas', () => {
    const exprs = [
      ...loadRules().map((r) => ({ where: `${r.file}: ${r.record ?? r.alert}`, expr: r.expr })),
      ...DASHBOARDS.flatMap((d) => d.rows.flatMap((row) => row.panels.flatMap((p) => p.targets.map((t) => ({ where: `${d.file}: ${p.title}`, expr: t.expr }))))),
    ];
    const misuse = exprs.flatMap(({ where, expr }) => fleetGaugeMisuse(expr).map((g) => `${where}: ${g}`));
    expect(misuse).toEqual([]);
    // The check reads something: these gauges are in use.
    expect(FLEET_GAUGES.filter((g) => exprs.some((e) => e.expr.includes(g))).length).toBeGreaterThanOrEqual(6);
  });

  it('catches a sum, an average and a bare use', () => {
    expect(fleetGaugeMisuse('sum(scheduler_queue_depth)')).toEqual(['scheduler_queue_depth']);
    expect(fleetGaugeMisuse('sum by (priority) (scheduler_queue_depth)')).toEqual(['scheduler_queue_depth']);
    expect(fleetGaugeMisuse('avg(scheduler_load_level) > 1')).toEqual(['scheduler_load_level']);
    expect(fleetGaugeMisuse('scheduler_no_probe_capacity == 1')).toEqual(['scheduler_no_probe_capacity']);
    expect(fleetGaugeMisuse('max by (what) (scheduler_expected_seconds{what="single"}) > 120')).toEqual([]);
    expect(fleetGaugeMisuse('max(scheduler_probe_capacity{kind="in_use"}) / max(scheduler_probe_capacity{kind="total"})')).toEqual([]);
    // A name that merely starts like a fleet gauge is another metric.
    expect(fleetGaugeMisuse('sum(scheduler_queue_depth_total)')).toEqual([]);
  });
});
