import { describe, expect, it } from 'vitest';
import { metricNamesIn, substituteGrafanaVariables } from './promql.ts';

describe('metricNamesIn', () => {
  it.each([
    ['max(scheduler_load_level)', ['scheduler_load_level']],
    ['sum by (kind, mode) (rate(gateway_jobs_created_total[5m]))', ['gateway_jobs_created_total']],
    ['histogram_quantile(0.95, sum by (priority, le) (rate(x_bucket{a="b,c)"}[5m])))', ['x_bucket']],
    ['(a:b:c or d * 0) / d', ['a:b:c', 'd']],
    ['up{job=~"gateway|lookup"} == 0', ['up']],
    ['dependency_up == 0 unless on (service, dependency) (max by (service, dependency) (dependency_up) == 0)', ['dependency_up']],
    ['max by (what) (s{what="single"}) > 120 and deriv(r:s:max{what="single"}[30m]) > 0', ['s', 'r:s:max']],
  ])('%s', (expr, names) => {
    expect(metricNamesIn(expr).sort()).toEqual([...names].sort());
  });

  it('substitutes the variables the dashboards use', () => {
    expect(substituteGrafanaVariables('rate(x{service=~"$service"}[$__rate_interval])')).toBe('rate(x{service=~".*"}[1m])');
  });
});
