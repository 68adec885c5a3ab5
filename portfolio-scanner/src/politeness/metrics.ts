import { Counter, Gauge, type Registry } from 'prom-client';

// Metric names of the DNS politeness layer. Labels are bounded: rcode from mailsec's RCODE list,
// operator a name of the operator table or "other", budget "operator" or "worker"; never a name.
export const POLITENESS_METRICS = {
  queries: 'portfolio_dns_queries_total',
  budgetTimeouts: 'portfolio_dns_budget_timeouts_total',
  replicas: 'portfolio_dns_budget_replicas',
} as const;

export interface PolitenessMetrics {
  queries: Counter<'rcode' | 'operator'>;
  budgetTimeouts: Counter<'budget'>;
  replicas: Gauge;
}

export function createPolitenessMetrics(registry: Registry): PolitenessMetrics {
  return {
    queries: new Counter({ name: POLITENESS_METRICS.queries, help: 'DNS queries sent (cache answers not counted), by response code and authoritative operator (table name or other)', labelNames: ['rcode', 'operator'], registers: [registry] }),
    budgetTimeouts: new Counter({ name: POLITENESS_METRICS.budgetTimeouts, help: 'DNS queries not sent because their budget would have made them wait past PORTFOLIO_DNS_BUDGET_MAX_WAIT_MS (reported as TIMEOUT), by budget (operator, worker)', labelNames: ['budget'], registers: [registry] }),
    replicas: new Gauge({ name: POLITENESS_METRICS.replicas, help: 'Live worker replicas the shared DNS and RDAP budgets are divided by', registers: [registry] }),
  };
}
