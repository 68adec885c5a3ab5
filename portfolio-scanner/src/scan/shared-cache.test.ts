// The shared cache of vendor answers: 1,000 Google-hosted domains walk _spf.google.com's tree and
// look up Google's MX hosts once, even through a resolver whose own cache (10 answers) is far too small to
// keep them; failures are never remembered; answers expire with their TTL.
import { afterEach, describe, expect, it } from 'vitest';
import { DnsResolver, type ResolveResult, type Resolver, type RrType } from '@dv/mailsec';
import { startWorld, type DnsRecordInput, type WorldHandle } from '@dv/world';
import type { GeoLookup } from '../geo/types.ts';
import { scanDomain } from './scan-domain.ts';
import { SharedDnsCache } from './shared-cache.ts';

const geo: GeoLookup = { lookup: () => null };
const DOMAINS = 1000;

function googleHostedWorld(): DnsRecordInput[] {
  const records: DnsRecordInput[] = [
    { name: 'test', type: 'SOA', primary: 'ns1.simulated.test', admin: 'hostmaster.simulated.test' },
    { name: '_spf.google.com', type: 'TXT', text: 'v=spf1 include:_netblocks.google.com include:_netblocks2.google.com ~all' },
    { name: '_netblocks.google.com', type: 'TXT', text: 'v=spf1 ip4:127.0.9.0/24 ~all' },
    { name: '_netblocks2.google.com', type: 'TXT', text: 'v=spf1 ip6:2001:db8:9::/48 ~all' },
    { name: 'aspmx.l.google.com', type: 'A', address: '127.0.11.10' },
    { name: 'alt1.aspmx.l.google.com', type: 'A', address: '127.0.11.11' },
  ];
  for (let i = 0; i < DOMAINS; i++) {
    const d = `g${i}.test`;
    records.push(
      { name: d, type: 'MX', priority: 1, exchange: 'aspmx.l.google.com' },
      { name: d, type: 'MX', priority: 5, exchange: 'alt1.aspmx.l.google.com' },
      { name: d, type: 'TXT', text: 'v=spf1 include:_spf.google.com ~all' },
    );
  }
  return records;
}

let world: WorldHandle | undefined;
afterEach(async () => {
  await world?.stop();
  world = undefined;
});

/** Scans every domain, `parallel` at a time, through a resolver keeping only 10 answers. */
async function scanAll(shared: SharedDnsCache | undefined, parallel: number): Promise<{ queries: number; resolver: DnsResolver }> {
  const resolver = new DnsResolver({ servers: (world as WorldHandle).dns.server, cacheMaxEntries: 10 });
  let next = 0;
  let queries = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < DOMAINS) {
        const outcome = await scanDomain(`g${next++}.test`, { resolver, geo, ...(shared ? { shared } : {}) });
        expect(outcome.observation.spf_email_senders).toBe('Google Workspace');
        expect(outcome.observation.spf_total_lookups).toBe(3);
        expect(outcome.unconfirmed).toEqual([]);
        queries += outcome.queries;
      }
    }),
  );
  return { queries, resolver };
}

const asked = (w: WorldHandle, name: string, type: string) => w.dns.queries.filter((q) => q.name.toLowerCase() === name && q.type === type).length;

describe('SharedDnsCache', () => {
  it(`${DOMAINS} Google-hosted domains walk _spf.google.com's tree and resolve Google's MX hosts once`, async () => {
    world = await startWorld({ dns: { records: googleHostedWorld() } });
    const shared = new SharedDnsCache({ maxEntries: 1000, maxTtlS: 3600 });
    const { queries, resolver } = await scanAll(shared, 32);
    resolver.close();
    for (const name of ['_spf.google.com', '_netblocks.google.com', '_netblocks2.google.com']) expect(asked(world, name, 'TXT'), name).toBe(1);
    expect(asked(world, 'aspmx.l.google.com', 'A')).toBe(1);
    expect(asked(world, 'alt1.aspmx.l.google.com', 'AAAA')).toBe(1);
    // What each domain still costs is its own names only (about 15), and the scans' own count is
    // close to what the server saw: within about one query per domain (the apex TXT the scan and
    // its SPF analysis ask at once is one query for the resolver but counted by both; a retry is
    // two queries counted once).
    expect(world.dns.queries.length / DOMAINS).toBeLessThan(20);
    expect(Math.abs(queries - world.dns.queries.length) / DOMAINS, `${queries} counted, ${world.dns.queries.length} seen`).toBeLessThan(1.5);
    expect(shared.stats().hits).toBeGreaterThan(5 * (DOMAINS - 1));
  }, 120_000);

  it('without it, the same pass through a small resolver cache walks the tree again and again', async () => {
    world = await startWorld({ dns: { records: googleHostedWorld().filter((r) => !/^g\d{3}\./.test(r.name)) } });
    // 100 domains are enough to show it: g0..g99 remain in the world.
    const resolver = new DnsResolver({ servers: world.dns.server, cacheMaxEntries: 10 });
    for (let i = 0; i < 100; i++) await scanDomain(`g${i}.test`, { resolver, geo });
    resolver.close();
    expect(asked(world, '_spf.google.com', 'TXT')).toBeGreaterThan(50);
  }, 60_000);

  it('never keeps a failed answer, and lets an answer go when its TTL runs out', async () => {
    let nowMs = 0;
    const shared = new SharedDnsCache({ maxEntries: 10, maxTtlS: 60, nowMs: () => nowMs });
    const calls: string[] = [];
    let rcode: ResolveResult['rcode'] = 'SERVFAIL';
    const base: Resolver = {
      async resolve<T extends RrType>(name: string, type: T) {
        calls.push(name);
        return { name, type, rcode, answers: [], cnames: [], authenticated: false, ttl: 300, fromCache: false } as ResolveResult<T>;
      },
    };
    const scoped = shared.scope('customer.test', base);
    await scoped.resolve('_spf.vendor.example', 'TXT');
    await scoped.resolve('_spf.vendor.example', 'TXT');
    expect(calls).toHaveLength(2);
    rcode = 'NODATA';
    await scoped.resolve('_spf.vendor.example', 'TXT');
    await scoped.resolve('_spf.vendor.example', 'TXT');
    expect(calls).toHaveLength(3);
    // Capped at maxTtlS (60 s) although the answer said 300 s.
    nowMs = 61_000;
    await scoped.resolve('_spf.vendor.example', 'TXT');
    expect(calls).toHaveLength(4);
    expect(scoped.queries).toBe(4);
  });

  it('passes the scanned domain\'s own names straight through', async () => {
    const shared = new SharedDnsCache({ maxEntries: 10, maxTtlS: 60 });
    const calls: string[] = [];
    const base: Resolver = {
      async resolve<T extends RrType>(name: string, type: T) {
        calls.push(name);
        return { name, type, rcode: 'NOERROR', answers: [], cnames: [], authenticated: false, ttl: 300, fromCache: false } as ResolveResult<T>;
      },
    };
    const scoped = shared.scope('www.customer.test', base);
    await scoped.resolve('_dmarc.customer.test', 'TXT');
    await scoped.resolve('_dmarc.customer.test', 'TXT');
    expect(calls).toEqual(['_dmarc.customer.test', '_dmarc.customer.test']);
    expect(shared.stats().entries).toBe(0);
  });
});
