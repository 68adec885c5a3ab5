import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

// Metric names of the DNS politeness layer. Labels are bounded: rcode from mailsec's RCODE list,
// operator a name of the operator table or "other", budget "operator" or "worker", held_by one of
// none, listed_operator, other_operator, worker, resolver; never a name.
export const POLITENESS_METRICS = {
  queries: 'portfolio_dns_queries_total',
  budgetTimeouts: 'portfolio_dns_budget_timeouts_total',
  budgetWait: 'portfolio_dns_budget_wait_seconds',
  replicas: 'portfolio_dns_budget_replicas',
} as const;

export interface PolitenessMetrics {
  queries: Counter<'rcode' | 'operator'>;
  budgetTimeouts: Counter<'budget'>;
  budgetWait: Histogram<'held_by'>;
  replicas: Gauge;
}

export function createPolitenessMetrics(registry: Registry): PolitenessMetrics {
  return {
    queries: new Counter({ name: POLITENESS_METRICS.queries, help: 'DNS queries sent (cache answers not counted), by response code and authoritative operator (table name or other)', labelNames: ['rcode', 'operator'], registers: [registry] }),
    budgetTimeouts: new Counter({ name: POLITENESS_METRICS.budgetTimeouts, help: 'DNS queries not sent because their budget would have made them wait past PORTFOLIO_DNS_BUDGET_MAX_WAIT_MS (reported as TIMEOUT), by budget (operator, worker)', labelNames: ['budget'], registers: [registry] }),
    budgetWait: new Histogram({
      name: POLITENESS_METRICS.budgetWait,
      help: 'Time a DNS query attempt waited for its budgets before it was sent, in seconds, by the budget that held it first (listed_operator: a large operator of the table; other_operator: one at the default budget; worker; resolver; none: sent at once)',
      labelNames: ['held_by'],
      buckets: [0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    replicas: new Gauge({ name: POLITENESS_METRICS.replicas, help: 'Live worker replicas the shared DNS and RDAP budgets are divided by', registers: [registry] }),
  };
}
