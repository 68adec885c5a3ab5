// The I/O around judgeCanaries: asks the canaries periodically and whenever an NXDOMAIN arrives
// after the last check has gone stale, keeps the state, and SaneResolver puts it in front of a
// resolver so nothing above it reads a lie as a fact. Each service builds one per resolver it
// trusts (docs/mailsec.md "Resolver sanity").
import { failure } from './interpret.ts';
import { DnsResolver, type DnsResolverOptions } from './resolver.ts';
import { RESOLVER_SANITY_DEFAULTS, isBelieved, judgeCanaries, type CanaryAnswer, type SanityState } from './sanity.ts';
import type { ResolveResult, Resolver, RrType } from './types.ts';

export interface ResolverSanityOptions {
  /**
   * Asks the canaries. It must not answer from a cache (a cached truth would hide a resolver that
   * started lying): a DnsResolver with cacheMaxEntries 0 on the same servers.
   */
  resolver: Resolver;
  /** Names that certainly exist; empty turns the check off (always believed). */
  canaries: readonly string[];
  /** Names this resolver in logs and /readyz (e.g. its `host:port`). */
  name?: string;
  intervalMs?: number;
  unreliableIntervalMs?: number;
  nxdomainFreshMs?: number;
  retryAfterS?: number;
  /** Called on every change of state (logs, metrics, cache flushes). */
  onChange?: (state: SanityState, detail: string, previous: SanityState) => void;
  nowMs?: () => number;
}

export class ResolverSanity {
  readonly name: string;
  readonly retryAfterS: number;
  readonly #o: Required<Pick<ResolverSanityOptions, 'intervalMs' | 'unreliableIntervalMs' | 'nxdomainFreshMs'>> & ResolverSanityOptions;
  readonly #now: () => number;
  #state: SanityState = 'unchecked';
  #detail = 'not checked yet';
  /** When the canaries last got a conclusive answer (0: never). */
  #checkedAt = 0;
  #inflight: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;

  constructor(opts: ResolverSanityOptions) {
    const d = RESOLVER_SANITY_DEFAULTS;
    this.#o = { ...opts, intervalMs: opts.intervalMs ?? d.intervalMs, unreliableIntervalMs: opts.unreliableIntervalMs ?? d.unreliableIntervalMs, nxdomainFreshMs: opts.nxdomainFreshMs ?? d.nxdomainFreshMs };
    this.name = opts.name ?? 'resolver';
    this.retryAfterS = opts.retryAfterS ?? d.retryAfterS;
    this.#now = opts.nowMs ?? Date.now;
  }

  get state(): SanityState {
    return this.#state;
  }

  get detail(): string {
    return this.#detail;
  }

  /** False while the resolver denies names that exist or answers every name alike. */
  get believed(): boolean {
    return isBelieved(this.#state);
  }

  get enabled(): boolean {
    return this.#o.canaries.length > 0;
  }

  /** Runs the first check now and then keeps checking until stop(). */
  start(): Promise<void> {
    this.#stopped = false;
    const first = this.check();
    this.#schedule();
    return first;
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** One round of canary queries; concurrent callers share it. */
  check(): Promise<void> {
    if (!this.enabled) return Promise.resolve();
    this.#inflight ??= this.#round().finally(() => {
      this.#inflight = undefined;
    });
    return this.#inflight;
  }

  /** Called on an NXDOMAIN: resolves once the answer may be judged (a fresh check, if one was due, has run). */
  async beforeBelievingNxdomain(): Promise<void> {
    if (!this.enabled) return;
    if (!this.#inflight && this.#now() - this.#checkedAt < this.#o.nxdomainFreshMs) return;
    await this.check();
  }

  async #round(): Promise<void> {
    const answers = await Promise.all(this.#o.canaries.map(async (name): Promise<CanaryAnswer> => {
      const r = await this.#o.resolver.resolve(name, 'A').catch((err: unknown) => failure(name, 'A', 'ERROR', (err as Error).message) as ResolveResult<'A'>);
      return { name, rcode: r.rcode, addresses: r.answers.map((a) => a.address) };
    }));
    const judged = judgeCanaries(answers);
    // Nothing conclusive (the resolver is down or we are offline): what we knew stands, and an
    // NXDOMAIN meanwhile waits for the next check only once per nxdomainFreshMs.
    this.#checkedAt = this.#now();
    if (judged.state === 'inconclusive') return;
    const previous = this.#state;
    this.#state = judged.state;
    this.#detail = judged.detail;
    if (previous !== judged.state) {
      this.#o.onChange?.(judged.state, judged.detail, previous);
      // Sooner checks while it lies, so it is believed again soon after it mends.
      this.#schedule();
    }
  }

  #schedule(): void {
    clearTimeout(this.#timer);
    if (this.#stopped || !this.enabled) return;
    const ms = this.believed ? this.#o.intervalMs : this.#o.unreliableIntervalMs;
    this.#timer = setTimeout(() => {
      void this.check().finally(() => this.#schedule());
    }, ms);
    this.#timer.unref();
  }
}

/** The error text of answers withheld from an unbelieved resolver; callers may test for it. */
export const RESOLVER_UNRELIABLE = 'resolver unreliable';

/**
 * A resolver that withholds what its upstream cannot be believed about: while the upstream denies
 * names that exist, its NXDOMAINs become SERVFAIL (a failed lookup, never "does not exist"); while
 * it answers every name alike, every answer does. Everything above treats SERVFAIL as "retry,
 * unknown", so no domain is called absent and no record is called gone on its word.
 */
export class SaneResolver implements Resolver {
  readonly #inner: Resolver;
  readonly sanity: ResolverSanity;

  constructor(inner: Resolver, sanity: ResolverSanity) {
    this.#inner = inner;
    this.sanity = sanity;
  }

  async resolve<T extends RrType>(name: string, type: T): Promise<ResolveResult<T>> {
    const result = await this.#inner.resolve(name, type);
    if (result.rcode === 'NXDOMAIN') await this.sanity.beforeBelievingNxdomain();
    const state = this.sanity.state;
    if ((state === 'denies_existing' && result.rcode === 'NXDOMAIN') || state === 'one_address') {
      return failure(result.name, type, 'SERVFAIL', `${RESOLVER_UNRELIABLE}: ${this.sanity.detail}`) as unknown as ResolveResult<T>;
    }
    return result;
  }
}

export interface SaneDnsOptions {
  servers: DnsResolverOptions['servers'];
  canaries: readonly string[];
  /** The service's own resolver settings (its cache, timeouts). */
  resolver?: Omit<DnsResolverOptions, 'servers'>;
  sanity?: Omit<ResolverSanityOptions, 'resolver' | 'canaries'>;
}

export interface SaneDns {
  resolver: SaneResolver;
  sanity: ResolverSanity;
  close(): void;
}

/**
 * A service's resolver with its sanity check: the canaries go through a second, cache-less
 * resolver on the same servers, and the service resolver's cache is emptied when the upstream is
 * believed again (what it cached while lying must not come back as fact).
 */
export function saneDnsResolver(opts: SaneDnsOptions): SaneDns {
  const inner = new DnsResolver({ ...opts.resolver, servers: opts.servers });
  const checker = new DnsResolver({ servers: opts.servers, cacheMaxEntries: 0, retries: 1, timeoutMs: opts.resolver?.timeoutMs ?? RESOLVER_SANITY_DEFAULTS.timeoutMs });
  const sanity = new ResolverSanity({
    ...opts.sanity,
    resolver: checker,
    canaries: opts.canaries,
    onChange: (state, detail, previous) => {
      if (isBelieved(state)) inner.clearCache();
      opts.sanity?.onChange?.(state, detail, previous);
    },
  });
  return {
    resolver: new SaneResolver(inner, sanity),
    sanity,
    close() {
      sanity.stop();
      checker.close();
      inner.close();
    },
  };
}

/**
 * The runtime's readiness Dependency (same shape, @dv/runtime): `/readyz` names `resolver` down
 * while any of these resolvers is not believed, and `dependency_up{dependency="resolver"}` says so.
 */
export function resolverDependency(sanities: () => readonly ResolverSanity[]): { name: 'resolver'; advisory: true; isReady(): Promise<boolean>; close(): Promise<void> } {
  return {
    name: 'resolver',
    // Every replica shares the resolver: unready pods would not mend it (docs/mailsec.md).
    advisory: true,
    isReady: async () => sanities().every((s) => s.believed),
    close: async () => undefined,
  };
}
