// MX lookup for the live path. `interpretMx` is the pure rule set (RFC 7505 null MX, RFC 5321 5.1
// implicit MX, NXDOMAIN vs SERVFAIL vs timeout); MxLookup adds retries and a Redis cache shared by
// every replica, each answer kept for its TTL.
import type { Redis } from 'ioredis';
import type { Rcode, Resolver, ResolveResult } from '@dv/mailsec';
import { providerForMx, type DnsOutcome } from '@dv/verdict';
import { Memo } from './memo.ts';

/** Answers are also kept in process this long at most (the shared Redis copy lives for the TTL). */
const LOCAL_TTL_MS = 30_000;

/** What a cached or computed lookup holds: provider is derived again on read (the table may change). */
export type MxFacts =
  | { kind: 'ok'; mx: string[]; implicit: boolean; ttlS: number }
  | { kind: 'null_mx' | 'nxdomain' | 'no_mail_host'; ttlS: number }
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
    if ('done' in step) return step.done;
    const [a, aaaa] = await Promise.all([this.o.resolver.resolve(domain, 'A'), this.o.resolver.resolve(domain, 'AAAA')]);
    return interpretAddress(domain, a, aaaa);
  }
}
