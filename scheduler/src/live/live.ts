// The live path of an item: MX lookup (shared cache) → provider → catch-all memory / MX-down
// shortcuts → its domain's batch → dispatch (dispatch.ts). Items leave as stored results, parked
// retries, or (on shutdown) released messages.
import { saneDnsResolver, serversFromEnv, type ResolverSanity, type SaneDns } from '@dv/mailsec';
import { verdict, type DnsOutcome, type ProviderRow } from '@dv/verdict';
import { Batcher } from './batcher.ts';
import { probesCatchAll, rcptsWithinErrorBudget } from '../dispatch/harvest-cut.ts';
import type { LiveDeps, LiveItem } from './live-types.ts';
import { Dispatcher } from '../dispatch/dispatch.ts';
import { MxLookup } from './dns.ts';
import { releaseHeld, type HeldItem } from '../intake/held-item.ts';
import { Memo } from '../intake/coalesce.ts';
import { downForEveryIp, MxHealth, MxHealthStore } from '../politeness/mx-health.ts';
import { Politeness, limitsFor } from '../politeness/politeness.ts';

/** Shared facts (catch-all memory, MX down) are re-read from Redis at most this often per replica. */
const FACT_MEMO_MS = 1_000;

export type { LiveDeps, LiveItem } from './live-types.ts';

const LEARNED_CACHE_MS = 10_000;
const LEARNED_CACHE_MAX = 10_000;

export class LivePath {
  readonly politeness: Politeness;
  private readonly d: LiveDeps;
  private readonly mx: MxLookup;
  private readonly dns: SaneDns;
  private readonly batcher: Batcher<LiveItem>;
  private readonly dispatcher: Dispatcher;
  /**
   * Learned RCPT limits per provider. Self-hosted domains are providers of their own, so the keys
   * grow with every domain seen: bounded like every memo (each is re-read from Redis when needed).
   */
  private readonly learned = new Memo<number | null>(LEARNED_CACHE_MS, LEARNED_CACHE_MAX);
  /** Learned error budgets per provider (harvest-cut.ts), bounded and re-read like the RCPT limits. */
  private readonly learnedErrors = new Memo<number | null>(LEARNED_CACHE_MS, LEARNED_CACHE_MAX);
  private stopping = false;
  private readonly catchAll = new Memo<boolean>(FACT_MEMO_MS);
  /** MX host health per (host, source IP), shared through Redis (mx-health.ts). */
  private readonly mxHealth: MxHealth;

  constructor(deps: LiveDeps) {
    this.d = deps;
    const c = deps.config;
    this.politeness = new Politeness({ redis: deps.redis, prefix: c.REDIS_PREFIX, leaseMs: c.SESSION_LEASE_MS });
    // Empty DNS_SERVERS: the system's resolvers (what node:dns would ask).
    const servers = c.DNS_SERVERS.length > 0 ? c.DNS_SERVERS : serversFromEnv({});
    this.dns = saneDnsResolver({
      servers,
      canaries: c.DNS_CANARIES,
      resolver: { timeoutMs: c.DNS_TIMEOUT_MS, retries: 1 },
      sanity: {
        intervalMs: c.DNS_CANARY_INTERVAL_MS,
        unreliableIntervalMs: c.DNS_CANARY_UNRELIABLE_INTERVAL_MS,
        onChange: (state, detail) => (this.dns.sanity.believed ? deps.log.info({ state }, 'DNS resolver believed again') : deps.log.error({ state, detail }, 'DNS resolver unreliable: no domain is called absent until it mends')),
      },
    });
    void this.dns.sanity.start();
    this.mx = new MxLookup({
      resolver: this.dns.resolver,
      redis: deps.redis,
      prefix: c.REDIS_PREFIX,
      retries: c.DNS_RETRIES,
      retryDelayMs: c.DNS_RETRY_DELAY_MS,
      maxTtlS: c.DNS_CACHE_MAX_TTL_S,
      negativeTtlS: c.DNS_NEGATIVE_TTL_S,
    });
    this.mxHealth = new MxHealth(new MxHealthStore({ redis: deps.redis, prefix: c.REDIS_PREFIX }), FACT_MEMO_MS);
    this.batcher = new Batcher();
    this.dispatcher = new Dispatcher({ ...deps, politeness: this.politeness, mxHealth: this.mxHealth, batcher: this.batcher, requeue: (item, preferIp) => this.add(item, preferIp),
      onCatchAll: (domain) => this.catchAll.set(domain, true, deps.config.CATCH_ALL_MEMORY_MS),
      errorBudget: (provider) => this.errorBudget(provider),
      // This replica sizes the next batches by it at once, not after the memo's next read.
      onErrorBudget: (provider, n, heldMs) => this.learnedErrors.set(provider, n, heldMs > 0 ? heldMs : LEARNED_CACHE_MS),
      // Sized by it at once; kept for its whole life when Redis could not take it.
      onLearnedRcpts: (provider, n, heldMs) => this.learned.set(provider, n, heldMs > 0 ? heldMs : LEARNED_CACHE_MS),
    });
  }

  /** Whether the MX lookups' resolver is believed (readiness names it while not). */
  get resolverSanity(): ResolverSanity {
    return this.dns.sanity;
  }

  /** Items waiting in batches or at a politeness gate (for load figures). */
  get waiting(): number {
    return this.batcher.size;
  }

  get sessionsInFlight(): number {
    return this.dispatcher.sessionsInFlight;
  }

  enqueue(h: HeldItem): void {
    void this.start(h).catch((err: unknown) => {
      this.d.log.error({ err, item: h.item._id }, 'live path failed; released');
      releaseHeld(h, 1_000);
    });
  }

  private async start(h: HeldItem): Promise<void> {
    if (this.stopping) return releaseHeld(h);
    const syntax = h.syntax!;
    const dns = await this.mx.lookup(syntax.domain);
    const now = new Date();
    const base = { email: h.item.email, syntax, lists: h.lists, now, ref: h.item.ref };
    if (dns.kind !== 'ok') {
      this.d.finisher.finish(h, verdict({ ...base, ...this.unlessResolverLies(dns) }), h.item.attempts);
      return;
    }
    const provider = dns.provider;
    // Redis unable to say: probe (the session finds a catch-all again) rather than release the item.
    if (!provider.quirks.acceptsAllAtRcpt && (await this.catchAll.get(syntax.domain, () => this.politeness.isCatchAll(syntax.domain).catch(() => false)))) {
      // Found catch-all recently: the answer would be the same, so no session (and no load on the host).
      const probe = { rcpt: { class: 'accepted', rule: 'catch-all-memory' }, catchAll: { class: 'accepted', rule: 'catch-all-memory' }, session: 'completed', attempts: h.item.attempts } as const;
      this.d.finisher.finish(h, verdict({ ...base, dns, probe }), h.item.attempts);
      return;
    }
    // Ends here only when every usable source IP found the domain's MX hosts down; else the batch
    // goes to an IP that has not (dispatch.ts), so one node's broken egress stays its own.
    const downMs = downForEveryIp(await this.mxHealth.view(dns.mx), dns.mx, this.d.fleet.usableIpKeys());
    if (downMs > 0) {
      const probe = { rcpt: null, catchAll: null, session: 'connect_failed', attempts: h.item.attempts } as const;
      this.d.finisher.finish(h, verdict({ ...base, dns, probe, retryAfterSeconds: Math.ceil(downMs / 1000) }), h.item.attempts);
      return;
    }
    this.add({ h, dns, provider }, h.item.source_ip);
  }

  /**
   * A failed lookup while the resolver is not believed is its lie withheld (SaneResolver): the
   * result says so, and when a fresh check is worth it, instead of "DNS kept failing".
   */
  private unlessResolverLies(dns: Exclude<DnsOutcome, { kind: 'ok' }>): { dns: DnsOutcome; retryAfterSeconds?: number } {
    const sanity = this.dns.sanity;
    if (sanity.believed || (dns.kind !== 'servfail' && dns.kind !== 'timeout')) return { dns };
    return { dns: { kind: 'resolver_unreliable', detail: sanity.detail }, retryAfterSeconds: sanity.retryAfterS };
  }

  private async rcptLimit(provider: ProviderRow, domain: string): Promise<number> {
    const n = await this.learned.get(provider.id, () => this.politeness.learnedRcpts(provider.id).catch(() => null));
    const byErrors = rcptsWithinErrorBudget(await this.errorBudget(provider.id), probesCatchAll(domain, provider));
    return Math.min(limitsFor(provider, this.d.config, n).rcptsPerSession, byErrors);
  }

  private errorBudget(provider: string): Promise<number | null> {
    return this.learnedErrors.get(provider, () => this.politeness.learnedErrorBudget(provider).catch(() => null));
  }

  /** Into the domain's batch (also used for in-memory retries: moved IP, fewer RCPTs, lost node). */
  add(item: LiveItem, preferIp: string | null): void {
    if (this.stopping || item.h.settled) return releaseHeld(item.h);
    void this.rcptLimit(item.provider, item.h.syntax!.domain).then((limit) => {
      if (this.stopping || item.h.settled) return releaseHeld(item.h);
      const q = this.batcher.add({ domain: item.h.syntax!.domain, preferIp, limit, single: item.h.priority === 'single', value: item }, Date.now());
      this.dispatcher.pump(q);
    });
  }

  /** Stops taking items; batches not yet sent are released; sessions in flight finish within the budget. */
  async stop(budgetMs: number): Promise<void> {
    this.stopping = true;
    await this.dispatcher.stop(budgetMs);
    for (const q of this.batcher.queues.values()) for (const v of q.values.splice(0)) releaseHeld(v.h);
    this.dns.close();
  }
}
