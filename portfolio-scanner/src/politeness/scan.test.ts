// The politeness layer under the real scan engine, against the simulated DNS world and a real
// Redis: transparent when the budgets allow, unconfirmed (never empty) when a budget would make a
// lookup wait too long; the replica heartbeat divides the shared budgets.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { DnsResolver } from '@dv/mailsec';
import { connectRedis, createLogger, type RedisDependency } from '@dv/runtime';
import { stackEnv } from '@dv/test-kit';
import type { WorldHandle } from '@dv/world';
import type { GeoLookup } from '../geo/types.ts';
import { scanDomain } from '../scan/scan-domain.ts';
import { SharedDnsCache } from '../scan/shared-cache.ts';
import { startPortfolioWorld } from '../scan/testing/world.ts';
import { PORTFOLIO_DEFAULTS } from '../defaults.ts';
import { createPoliteScanResolver, type PolitenessConfig } from './index.ts';
import { createPolitenessMetrics, POLITENESS_METRICS } from './metrics.ts';
import { OperatorBudgets } from './operators.ts';
import { PoliteResolver } from './polite-resolver.ts';
import { ReplicaHeartbeat } from './replicas.ts';
import { BudgetScheduler } from './query-grants.ts';

const geo: GeoLookup = { lookup: () => ({ country: null, region: null, city: null, lat: null, lon: null, asn: null, asn_name: null }) };
const AT = new Date('2026-06-01T00:00:00Z');
let world: WorldHandle;
let upstream: DnsResolver;

beforeAll(async () => {
  world = await startPortfolioWorld();
  upstream = new DnsResolver({ servers: world.dns.server, timeoutMs: 300, retries: 0, cacheMaxEntries: 0 });
});
afterAll(async () => {
  upstream?.close();
  await world?.stop();
});

function polite(o: { operatorQps: number; maxWaitMs: number }) {
  const registry = new Registry();
  const scheduler = new BudgetScheduler({ workerQps: 5000, resolverQps: [5000], maxWaitMs: o.maxWaitMs, windowMarginMs: 10 });
  const resolver = new PoliteResolver({
    upstreams: [{ name: world.dns.server, resolver: upstream }],
    scheduler,
    operators: new OperatorBudgets({ defaultQps: o.operatorQps, overrides: { 'Google Cloud DNS': o.operatorQps, Google: o.operatorQps } }),
    answerCacheMaxEntries: 1000,
    answerCacheMaxTtlS: 60,
    zoneCacheMaxEntries: 1000,
    zoneCacheMaxTtlS: 60,
    zoneFailureTtlS: 5,
    maxWaitMs: o.maxWaitMs,
    metrics: createPolitenessMetrics(registry),
  });
  return { resolver, scheduler, registry };
}

const scan = (resolver: PoliteResolver | DnsResolver) => scanDomain('pf-google.test', { resolver, geo, shared: new SharedDnsCache({ maxEntries: 1000, maxTtlS: 60 }), now: () => AT });

describe('politeness under scanDomain', () => {
  it('with room in the budgets a scan is the same as without the layer, and its zone is charged to its operator', async () => {
    const plain = await scan(upstream);
    const { resolver, scheduler, registry } = polite({ operatorQps: 5000, maxWaitMs: 2000 });
    const viaBudgets = await scan(resolver);
    expect(viaBudgets.observation).toEqual(plain.observation);
    expect(viaBudgets.unconfirmed).toEqual(plain.unconfirmed);
    expect((await resolver.operatorOf('pf-google.test')).label).toBe('Google Cloud DNS');
    expect(await registry.metrics()).toMatch(new RegExp(`${POLITENESS_METRICS.queries}\\{rcode="NOERROR",operator="Google Cloud DNS"\\} [1-9]`));
    scheduler.close();
  });

  it('a lookup its operator budget would hold past the wait limit is reported unconfirmed, never empty', async () => {
    // 5 queries/s and 400 ms: a scan's ~35 questions cannot all be asked in time.
    const { resolver, scheduler, registry } = polite({ operatorQps: 5, maxWaitMs: 400 });
    const { observation, unconfirmed } = await scan(resolver);
    expect(unconfirmed.length).toBeGreaterThan(5);
    // Whatever is unconfirmed carries no invented value: null, not "" or a partial list.
    const plainFields = ['mx', 'txt', 'spf', 'a_records', 'aaaa_records', 'ns', 'soa', 'bimi'] as const;
    const held = plainFields.filter((f) => unconfirmed.includes(f));
    expect(held.length).toBeGreaterThan(0);
    for (const field of held) expect(observation[field]).toBeNull();
    expect(await registry.metrics()).toMatch(new RegExp(`${POLITENESS_METRICS.budgetTimeouts}\\{budget="operator"\\} [1-9]`));
    scheduler.close();
  });
});

describe('replica heartbeat (real Redis)', () => {
  let redis: RedisDependency;
  beforeAll(async () => {
    redis = await connectRedis(stackEnv().REDIS_URL as string, createLogger('test', 'silent'));
  });
  afterAll(async () => {
    await redis?.close();
  });

  it('counts the live replicas, and a stopped one leaves at once', async () => {
    const key = `test:budget-replicas:${process.pid}:${Date.now()}`;
    const seen: Record<string, number> = {};
    const beat = (id: string) => new ReplicaHeartbeat(redis.redis, { id, key, heartbeatMs: 50, ttlMs: 1000, onCount: (n) => (seen[id] = n) });
    const a = beat('a');
    const b = beat('b');
    await a.start();
    await b.start();
    expect(await a.beat()).toBe(2);
    await b.stop();
    expect(await a.beat()).toBe(1);
    expect(seen.a).toBe(1);
    await a.stop();
  });

  it('a replica joining others sends nothing until they have seen it; the first one alone starts at once', async () => {
    const config: PolitenessConfig = {
      DNS_SERVERS: [world.dns.server],
      DNS_TIMEOUT_MS: 500,
      DNS_RETRIES: 0,
      DNS_CANARIES: world.env.DNS_CANARIES!.split(','),
      DNS_CANARY_INTERVAL_MS: 60_000,
      DNS_CANARY_UNRELIABLE_INTERVAL_MS: 10_000,
      REDIS_PREFIX: `test:join:${process.pid}:${Date.now()}:`,
      PORTFOLIO_DNS_OPERATOR_DEFAULT_QPS: 50,
      PORTFOLIO_DNS_OPERATOR_QPS: {},
      PORTFOLIO_DNS_RESOLVER_QPS: 1000,
      PORTFOLIO_DNS_WORKER_QPS: 1000,
      PORTFOLIO_DNS_BUDGET_MAX_WAIT_MS: 10_000,
      PORTFOLIO_BUDGETS_SHARED: true,
    };
    const first = await createPoliteScanResolver(config, { redis: redis.redis });
    const second = await createPoliteScanResolver(config, { redis: redis.redis });
    try {
      expect(first.replicas()).toBe(1);
      expect(second.replicas()).toBe(2);
      let t = performance.now();
      expect((await first.resolver.resolve('pf-google.test', 'MX')).rcode).toBe('NOERROR');
      expect(performance.now() - t).toBeLessThan(PORTFOLIO_DEFAULTS.dnsWorkerHeartbeatMs);
      t = performance.now();
      expect((await second.resolver.resolve('pf-google.test', 'TXT')).rcode).toBe('NOERROR');
      expect(performance.now() - t).toBeGreaterThanOrEqual(PORTFOLIO_DEFAULTS.dnsWorkerHeartbeatMs);
      // By then the first one has beaten and takes half.
      expect(first.replicas()).toBe(2);
    } finally {
      await second.close();
      await first.close();
    }
  }, 20_000);
});
