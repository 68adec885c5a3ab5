// The politeness layer's surface: a resolver for the scan workers with per-operator, per-resolver
// and per-worker budgets, and the replica heartbeat that divides the shared budgets.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Registry } from 'prom-client';
import { DnsResolver, ResolverSanity, SaneResolver, serversFromEnv } from '@dv/mailsec';
import type { Logger, RedisDependency } from '@dv/runtime';
import { PORTFOLIO_DEFAULTS } from '../defaults.ts';
import { createPolitenessMetrics } from './metrics.ts';
import { OperatorBudgets } from './operators.ts';
import { PoliteResolver } from './polite-resolver.ts';
import { ReplicaHeartbeat } from './replicas.ts';
import { BudgetScheduler } from './query-grants.ts';

export { PoliteResolver, type PoliteResolverOptions, type Upstream } from './polite-resolver.ts';
export { BudgetScheduler, type Grant, type SchedulerOptions } from './query-grants.ts';
export { OperatorBudgets, zoneOf, nsDomain, type Operator } from './operators.ts';
export { OPERATOR_TABLE, OTHER_OPERATOR, type OperatorRow } from './operator-table.ts';
export { ReplicaHeartbeat, REPLICAS_KEY } from './replicas.ts';
export { createPolitenessMetrics, POLITENESS_METRICS, type PolitenessMetrics } from './metrics.ts';

export interface PolitenessConfig {
  DNS_SERVERS: string[];
  DNS_TIMEOUT_MS: number;
  DNS_RETRIES: number;
  DNS_CANARIES: readonly string[];
  DNS_CANARY_INTERVAL_MS: number;
  DNS_CANARY_UNRELIABLE_INTERVAL_MS: number;
  REDIS_PREFIX: string;
  PORTFOLIO_DNS_OPERATOR_DEFAULT_QPS: number;
  PORTFOLIO_DNS_OPERATOR_QPS: Record<string, number>;
  PORTFOLIO_DNS_RESOLVER_QPS: number;
  PORTFOLIO_DNS_WORKER_QPS: number;
  PORTFOLIO_DNS_BUDGET_MAX_WAIT_MS: number;
  PORTFOLIO_BUDGETS_SHARED: boolean;
}

export interface ScanResolverHandle {
  resolver: PoliteResolver;
  scheduler: BudgetScheduler;
  /** One sanity check per upstream resolver (readiness names `resolver` while one is not believed). */
  sanities: readonly ResolverSanity[];
  /** Live replicas sharing the budgets (1 until the first heartbeat, or when not shared). */
  replicas(): number;
  /** Adds a listener for the replica count (the RDAP budgets divide by it too). */
  onReplicas(listener: (replicas: number) => void): void;
  close(): Promise<void>;
}

/**
 * The resolver the scan workers use: one mailsec DnsResolver per DNS_SERVERS entry (its own
 * budget; no cache of its own, the politeness layer keeps answers), under the budgets. With
 * PORTFOLIO_BUDGETS_SHARED and Redis, the operator, resolver and RDAP budgets are divided by the
 * live replicas.
 */
export async function createPoliteScanResolver(
  config: PolitenessConfig,
  deps: { registry?: Registry; redis?: RedisDependency['redis']; log?: Logger },
): Promise<ScanResolverHandle> {
  const servers = config.DNS_SERVERS.length > 0 ? config.DNS_SERVERS : serversFromEnv({}).map((s) => (s.family === 6 ? `[${s.host}]:${s.port}` : `${s.host}:${s.port}`));
  const upstreamResolvers = servers.map((server) => new DnsResolver({ servers: [server], timeoutMs: config.DNS_TIMEOUT_MS, retries: 0, cacheMaxEntries: 0, maxOutstanding: PORTFOLIO_DEFAULTS.dnsUpstreamMaxOutstanding }));
  // Each upstream checked on its own (one lying resolver among good ones is still found), through
  // its own cache-less resolver, outside the budgets: a few canary queries a minute.
  const sanities = upstreamResolvers.map((r, i) => new ResolverSanity({
    resolver: r,
    name: servers[i] as string,
    canaries: config.DNS_CANARIES,
    intervalMs: config.DNS_CANARY_INTERVAL_MS,
    unreliableIntervalMs: config.DNS_CANARY_UNRELIABLE_INTERVAL_MS,
    onChange: (state, detail) => deps.log?.[state === 'trustworthy' ? 'info' : 'error']({ resolver: servers[i], state, detail }, 'DNS resolver sanity changed'),
  }));
  await Promise.all(sanities.map((s) => s.start()));
  const d = PORTFOLIO_DEFAULTS;
  const maxWaitMs = config.PORTFOLIO_DNS_BUDGET_MAX_WAIT_MS;
  const scheduler = new BudgetScheduler({
    workerQps: config.PORTFOLIO_DNS_WORKER_QPS,
    resolverQps: servers.map(() => config.PORTFOLIO_DNS_RESOLVER_QPS),
    maxWaitMs,
    windowMarginMs: d.dnsBudgetWindowMarginMs,
  });
  const metrics = deps.registry ? createPolitenessMetrics(deps.registry) : undefined;
  const resolver = new PoliteResolver({
    upstreams: upstreamResolvers.map((r, i) => ({ name: servers[i] as string, resolver: new SaneResolver(r, sanities[i]!) })),
    scheduler,
    operators: new OperatorBudgets({ defaultQps: config.PORTFOLIO_DNS_OPERATOR_DEFAULT_QPS, overrides: config.PORTFOLIO_DNS_OPERATOR_QPS }),
    answerCacheMaxEntries: d.dnsAnswerCacheMaxEntries,
    answerCacheMaxTtlS: d.dnsAnswerCacheMaxTtlS,
    zoneCacheMaxEntries: d.dnsZoneCacheMaxEntries,
    zoneCacheMaxTtlS: d.dnsZoneCacheMaxTtlS,
    zoneFailureTtlS: d.dnsZoneFailureTtlS,
    maxWaitMs,
    // Retries are made here, each under the budgets (DNS_RETRIES), not inside the upstream resolvers.
    attempts: config.DNS_RETRIES + 1,
    ...(metrics ? { metrics } : {}),
  });
  let replicas = 1;
  const listeners: ((n: number) => void)[] = [(n) => scheduler.setShare(n), (n) => metrics?.replicas.set(n)];
  metrics?.replicas.set(1);
  let heartbeat: ReplicaHeartbeat | undefined;
  if (config.PORTFOLIO_BUDGETS_SHARED && deps.redis) {
    let warned = false;
    heartbeat = new ReplicaHeartbeat(deps.redis, {
      id: `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`,
      key: `${config.REDIS_PREFIX}budget-replicas`,
      heartbeatMs: d.dnsWorkerHeartbeatMs,
      ttlMs: d.dnsWorkerHeartbeatTtlMs,
      onCount: (n) => {
        warned = false;
        if (n === replicas) return;
        replicas = n;
        for (const l of listeners) l(n);
      },
      onError: (err) => {
        if (!warned) deps.log?.warn({ err: err.message }, 'budget heartbeat failed; keeping the last replica count');
        warned = true;
      },
    });
    await heartbeat.start();
    // Joining replicas already at work: they learn of this one at their next beat and go on
    // spending their larger share until then, so this one sends nothing for a beat (and a margin).
    if (replicas > 1) scheduler.holdFor(d.dnsWorkerHeartbeatMs + d.dnsJoinHoldMarginMs);
  }
  return {
    resolver,
    scheduler,
    sanities,
    replicas: () => replicas,
    onReplicas: (l) => {
      listeners.push(l);
      l(replicas);
    },
    close: async () => {
      await heartbeat?.stop();
      scheduler.close();
      for (const s of sanities) s.stop();
      for (const r of upstreamResolvers) r.close();
    },
  };
}
