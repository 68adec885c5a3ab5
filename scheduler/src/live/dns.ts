// MX lookup for the live path. `interpretMx` is the pure rule set (RFC 7505 null MX, RFC 5321 5.1
// implicit MX, NXDOMAIN vs SERVFAIL vs timeout); `interpretMxHosts` judges the MX host names' own
// addresses (RFC 5321 5.1: with MX records there is no fallback to the domain's address, so MX
// hosts that do not exist mean the domain takes no mail); MxLookup adds retries and a Redis cache
// shared by every replica, each answer kept for its TTL.
import { isIP } from 'node:net';
import type { Redis } from 'ioredis';
import type { Rcode, Resolver, ResolveResult } from '@dv/mailsec';
import { providerForMx, type DnsOutcome } from '@dv/verdict';
import { Memo } from '../intake/coalesce.ts';

/** Answers are also kept in process this long at most (the shared Redis copy lives for the TTL). */
const LOCAL_TTL_MS = 30_000;

/** What a cached or computed lookup holds: provider is derived again on read (the table may change). */
export type MxFacts =
  | { kind: 'ok'; mx: string[]; implicit: boolean; ttlS: number }
  | { kind: 'null_mx' | 'nxdomain' | 'no_mail_host' | 'mx_hosts_absent'; ttlS: number }
  | { kind: 'servfail' | 'timeout' };

export type MxStep = { done: MxFacts } | { needAddress: true };

function failureKind(rcode: Rcode): 'servfail' | 'timeout' {
  return rcode === 'TIMEOUT' ? 'timeout' : 'servfail';
}

const clean = (host: string) => host.trim().toLowerCase().replace(/\.$/, '');

/** First step: the MX answer alone. */
export function interpretMx(mx: Pick<ResolveResult<'MX'>, 'rcode' | 'answers' | 'ttl'>): MxStep {
  if (mx.rcode === 'NXDOMAIN') return { done: { kind: 'nxdomain', ttlS: mx.ttl } };
  if (mx.rcode === 'NODATA') return { needAddress: true };
  if (mx.rcode !== 'NOERROR') return { done: { kind: failureKind(mx.rcode) } };
  const records = [...mx.answers].sort((a, b) => a.priority - b.priority || a.exchange.localeCompare(b.exchange));
  const hosts = records.map((r) => clean(r.exchange));
  // RFC 7505: a single MX with an empty exchange (".") says the domain takes no mail. Mixed with
  // real MX records it is a misconfiguration: use the real ones.
  const real = hosts.filter((h) => h !== '');
  if (real.length === 0) return { done: { kind: 'null_mx', ttlS: mx.ttl } };
  return { done: { kind: 'ok', mx: [...new Set(real)], implicit: false, ttlS: mx.ttl } };
}

/** Second step after NODATA for MX: the domain's A/AAAA (implicit MX) decide. */
export function interpretAddress(domain: string, a: Pick<ResolveResult, 'rcode' | 'ttl'>, aaaa: Pick<ResolveResult, 'rcode' | 'ttl'>): MxFacts {
  if (a.rcode === 'NOERROR' || aaaa.rcode === 'NOERROR') return { kind: 'ok', mx: [clean(domain)], implicit: true, ttlS: Math.min(...[a, aaaa].filter((r) => r.rcode === 'NOERROR').map((r) => r.ttl)) };
  const failed = [a, aaaa].find((r) => r.rcode !== 'NODATA' && r.rcode !== 'NXDOMAIN');
  if (failed) return { kind: failureKind(failed.rcode) };
  return { kind: 'no_mail_host', ttlS: Math.min(a.ttl, aaaa.ttl) };
}

type OkFacts = Extract<MxFacts, { kind: 'ok' }>;

/** What the address lookups of one MX host name say. */
export type HostAddress = 'address' | 'absent' | 'servfail' | 'timeout';

/** A host has an address when A or AAAA answers; it is absent when both are NXDOMAIN or NODATA. */
export function hostAddress(a: Pick<ResolveResult, 'rcode'>, aaaa: Pick<ResolveResult, 'rcode'>): HostAddress {
  if (a.rcode === 'NOERROR' || aaaa.rcode === 'NOERROR') return 'address';
  const failed = [a, aaaa].find((r) => r.rcode !== 'NODATA' && r.rcode !== 'NXDOMAIN');
  return failed ? failureKind(failed.rcode) : 'absent';
}

/**
 * After an MX answer: the domain takes no mail when no MX host has an address (every one
 * NXDOMAIN or NODATA); a lookup that failed on a host without an address is a DNS failure (retry,
 * then unknown), since that host may exist. One host with an address keeps the MX answer.
 */
export function interpretMxHosts(facts: OkFacts, hosts: readonly { state: HostAddress; ttlS: number }[]): MxFacts {
  if (hosts.length < facts.mx.length || hosts.some((h) => h.state === 'address')) return facts;
  const failed = hosts.find((h) => h.state === 'servfail' || h.state === 'timeout');
  if (failed) return { kind: failed.state as 'servfail' | 'timeout' };
  return { kind: 'mx_hosts_absent', ttlS: Math.min(facts.ttlS, ...hosts.map((h) => h.ttlS)) };
}

export function toDnsOutcome(f: MxFacts): DnsOutcome {
  if (f.kind === 'ok') return { kind: 'ok', mx: f.mx, provider: providerForMx(f.mx[0]!), implicit: f.implicit };
  return { kind: f.kind };
}

export interface MxLookupOptions {
  resolver: Resolver;
  redis: Redis;
  prefix: string;
  retries: number;
  retryDelayMs: number;
  maxTtlS: number;
  negativeTtlS: number;
}

export class MxLookup {
  private readonly o: MxLookupOptions;
  /** Concurrent lookups of one domain in this replica share one query; answers stay a little while. */
  private readonly local = new Memo<MxFacts>(LOCAL_TTL_MS);

  constructor(opts: MxLookupOptions) {
    this.o = opts;
  }

  async lookup(domain: string): Promise<DnsOutcome> {
    const key = clean(domain);
    const facts = await this.local.get(key, () => this.cachedOrFresh(key));
    // Failures are not kept: the next item of the domain asks again.
    if (facts.kind === 'servfail' || facts.kind === 'timeout') this.local.set(key, facts, 0);
    return toDnsOutcome(facts);
  }

  private async cachedOrFresh(domain: string): Promise<MxFacts> {
    const rkey = `${this.o.prefix}mx:${domain}`;
    const hit = await this.o.redis.get(rkey).catch(() => null);
    if (hit) return JSON.parse(hit) as MxFacts;
    let facts: MxFacts = { kind: 'servfail' };
    for (let attempt = 0; attempt <= this.o.retries; attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, this.o.retryDelayMs));
      facts = await this.resolveOnce(domain);
      if (facts.kind !== 'servfail' && facts.kind !== 'timeout') break;
    }
    if (facts.kind !== 'servfail' && facts.kind !== 'timeout' && 'ttlS' in facts) {
      const ttlS = facts.kind === 'ok' ? Math.min(facts.ttlS, this.o.maxTtlS) : Math.min(facts.ttlS || this.o.negativeTtlS, this.o.negativeTtlS);
      if (ttlS > 0) await this.o.redis.set(rkey, JSON.stringify(facts), 'EX', ttlS).catch(() => undefined);
    }
    return facts;
  }

  private async resolveOnce(domain: string): Promise<MxFacts> {
    const step = interpretMx(await this.o.resolver.resolve(domain, 'MX'));
    if ('done' in step) return step.done.kind === 'ok' ? this.checkMxHosts(step.done) : step.done;
    const [a, aaaa] = await Promise.all([this.o.resolver.resolve(domain, 'A'), this.o.resolver.resolve(domain, 'AAAA')]);
    return interpretAddress(domain, a, aaaa);
  }

  /**
   * Whether any MX host name has an address. The first host usually answers its A query, so a
   * healthy domain costs one lookup more (cached with the MX answer); only when it has none are
   * the other hosts asked, all at once, so dead domains do not pay one timeout per host in turn.
   */
  private async checkMxHosts(facts: OkFacts): Promise<MxFacts> {
    const lookup = async (host: string): Promise<{ state: HostAddress; ttlS: number }> => {
      // An address literal in MX (a misconfiguration the probe still dials) needs no lookup.
      if (isIP(host)) return { state: 'address', ttlS: facts.ttlS };
      const a = await this.o.resolver.resolve(host, 'A');
      if (a.rcode === 'NOERROR') return { state: 'address', ttlS: a.ttl };
      const aaaa = await this.o.resolver.resolve(host, 'AAAA');
      return { state: hostAddress(a, aaaa), ttlS: Math.min(a.ttl, aaaa.ttl) };
    };
    const first = await lookup(facts.mx[0]!);
    if (first.state === 'address') return facts;
    const rest = await Promise.all(facts.mx.slice(1).map(lookup));
    return interpretMxHosts(facts, [first, ...rest]);
  }
}
