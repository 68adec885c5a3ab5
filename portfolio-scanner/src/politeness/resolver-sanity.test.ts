// A lying resolver never empties a portfolio: a rescan through DNS_SERVERS that answers NXDOMAIN to
// every name (then one address to every name) records no change against the last good scan, and
// the scan resolver's sanity check says the resolver is not believed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DnsResolver, resolverDependency } from '@dv/mailsec';
import { startLyingDnsServer, type LyingDnsServer, type WorldHandle } from '@dv/world';
import type { GeoLookup } from '../geo/types.ts';
import { scanDomain } from '../scan/scan-domain.ts';
import { SharedDnsCache } from '../scan/shared-cache.ts';
import { startPortfolioWorld } from '../scan/testing/world.ts';
import { diffScan } from '../store/changes.ts';
import { createPoliteScanResolver, type PolitenessConfig, type ScanResolverHandle } from './index.ts';

const geo: GeoLookup = { lookup: () => ({ country: null, region: null, city: null, lat: null, lon: null, asn: null, asn_name: null }) };
const AT = new Date('2026-06-01T00:00:00Z');
const LATER = new Date('2026-06-02T00:00:00Z');

let world: WorldHandle;
let liar: LyingDnsServer;
let handle: ScanResolverHandle;

beforeAll(async () => {
  world = await startPortfolioWorld();
  liar = await startLyingDnsServer('nxdomain');
  const config: PolitenessConfig = {
    DNS_SERVERS: [liar.server],
    DNS_TIMEOUT_MS: 300,
    DNS_RETRIES: 0,
    // Names that exist (in the world): the liar denies them.
    DNS_CANARIES: world.env.DNS_CANARIES!.split(','),
    DNS_CANARY_INTERVAL_MS: 60_000,
    DNS_CANARY_UNRELIABLE_INTERVAL_MS: 200,
    REDIS_PREFIX: `test:sanity:${process.pid}:`,
    PORTFOLIO_DNS_OPERATOR_DEFAULT_QPS: 1000,
    PORTFOLIO_DNS_OPERATOR_QPS: {},
    PORTFOLIO_DNS_RESOLVER_QPS: 10_000,
    PORTFOLIO_DNS_WORKER_QPS: 10_000,
    PORTFOLIO_DNS_BUDGET_MAX_WAIT_MS: 10_000,
    PORTFOLIO_BUDGETS_SHARED: false,
  };
  handle = await createPoliteScanResolver(config, {});
}, 30_000);
afterAll(async () => {
  await handle?.close();
  await liar?.stop();
  await world?.stop();
});

async function lastGoodScan() {
  const truthful = new DnsResolver({ servers: world.dns.server, timeoutMs: 2_000, retries: 2 });
  try {
    const outcome = await scanDomain('acme.test', { resolver: truthful, geo, shared: new SharedDnsCache({ maxEntries: 100, maxTtlS: 60 }), now: () => AT });
    return diffScan(null, outcome, AT).result;
  } finally {
    truthful.close();
  }
}

const rescan = () => scanDomain('acme.test', { resolver: handle.resolver, geo, shared: new SharedDnsCache({ maxEntries: 100, maxTtlS: 60 }), now: () => LATER });

describe('portfolio rescans through a lying resolver', () => {
  it('an NXDOMAIN-to-everything resolver records no change, and readiness names the resolver', async () => {
    const previous = await lastGoodScan();
    expect(previous.mx).toContain('acme.test');
    const diff = diffScan(previous, await rescan(), LATER);
    expect(diff.changes).toEqual([]);
    expect(diff.result.mx).toBe(previous.mx);
    expect(handle.sanities.map((s) => s.state)).toEqual(['denies_existing']);
    expect(await resolverDependency(() => handle.sanities).isReady()).toBe(false);
  }, 30_000);

  it('a resolver answering every name with one address records no change either', async () => {
    const previous = await lastGoodScan();
    liar.setMode('one_address');
    // Canaries are asked every 200 ms while the resolver is not believed.
    await new Promise((r) => setTimeout(r, 800));
    const diff = diffScan(previous, await rescan(), LATER);
    expect(diff.changes).toEqual([]);
    expect(handle.sanities.map((s) => s.state)).toEqual(['one_address']);
  }, 30_000);
});
