// The RDAP requests of the registration refresher go through here (mailsec's lookupWhois
// `rdapFetch` hook): one rate budget per RDAP server (host), and a server that answers 429 (or 503
// with Retry-After) is left alone until its Retry-After has passed. Nothing is retried here: the
// domain is simply due again after the back-off (RdapDeferred), so a throttled server never sees a
// storm of retries, and the other servers are not affected.
import { fetchJson, type FetchOptions, type FetchOutcome } from '@dv/mailsec';
import { Pacer } from './pacer.ts';
import type { RegistrationMetrics } from './metrics.ts';

/** Control flow, not a failure: the lookup is put off until `untilMs` (named, so callers tell it from a failure). */
export class RdapDeferred extends Error {
  readonly server: string;
  readonly untilMs: number;
  readonly reason: 'backoff' | 'busy';

  constructor(server: string, untilMs: number, reason: 'backoff' | 'busy') {
    super(`RDAP server ${server} ${reason === 'backoff' ? 'asked us to back off' : 'budget is taken'} until ${new Date(untilMs).toISOString()}`);
    this.name = 'RdapDeferred';
    this.server = server;
    this.untilMs = untilMs;
    this.reason = reason;
  }
}

export interface RdapBudgetOptions {
  /** Requests per second to one server (divided among replicas by setShare). */
  serverQps: number;
  /** Longest a request may wait for its server's budget before the domain is put off. */
  maxWaitMs: number;
  defaultBackoffS: number;
  maxBackoffS: number;
  metrics?: RegistrationMetrics;
  nowMs?: () => number;
  /** The HTTP client (tests may wrap it); default mailsec's fetchJson. */
  fetch?: (url: string, options: FetchOptions) => Promise<FetchOutcome>;
}

/** Seconds from a Retry-After value (delay-seconds or an HTTP-date, RFC 9110 10.2.3); undefined when unreadable. */
export function retryAfterS(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v);
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - nowMs) / 1000));
}

export class RdapServerBudgets {
  readonly #o: RdapBudgetOptions;
  readonly #now: () => number;
  readonly #budgets = new Map<string, Pacer>();
  readonly #backoffUntil = new Map<string, number>();
  #share = 1;

  constructor(options: RdapBudgetOptions) {
    this.#o = options;
    this.#now = options.nowMs ?? Date.now;
  }

  setShare(replicas: number): void {
    this.#share = Math.max(1, Math.floor(replicas));
    for (const b of this.#budgets.values()) b.setQps(this.#o.serverQps / this.#share);
  }

  /** When the server may be asked again (ms), or undefined when it is not backing off. */
  backoffUntil(server: string): number | undefined {
    const until = this.#backoffUntil.get(server);
    if (until === undefined || until <= this.#now()) return undefined;
    return until;
  }

  /** The `rdapFetch` hook: waits for the server's budget, or throws RdapDeferred. */
  readonly fetch = async (url: string, options: FetchOptions): Promise<FetchOutcome> => {
    const server = new URL(url).host;
    const now = this.#now();
    const until = this.backoffUntil(server);
    if (until !== undefined) throw new RdapDeferred(server, until, 'backoff');
    let budget = this.#budgets.get(server);
    if (!budget) {
      budget = new Pacer(this.#o.serverQps / this.#share);
      this.#budgets.set(server, budget);
    }
    // Reserve the next slot at once (so concurrent lookups queue in arrival order), then wait for it.
    const at = Math.max(now, budget.readyAt());
    if (at - now > this.#o.maxWaitMs) throw new RdapDeferred(server, at, 'busy');
    budget.take(at);
    if (at > now) await new Promise((r) => setTimeout(r, at - now));
    const res = await (this.#o.fetch ?? fetchJson)(url, options);
    this.#o.metrics?.rdapRequests.inc({ server, status: res.status !== undefined ? String(res.status) : /no answer within/.test(res.ok ? '' : res.error) ? 'timeout' : 'error' });
    if (!res.ok && (res.status === 429 || (res.status === 503 && res.retryAfter !== undefined))) {
      const after = Math.min(retryAfterS(res.retryAfter, this.#now()) ?? this.#o.defaultBackoffS, this.#o.maxBackoffS);
      const resume = this.#now() + Math.max(1, after) * 1000;
      this.#backoffUntil.set(server, resume);
      throw new RdapDeferred(server, resume, 'backoff');
    }
    return res;
  };
}
