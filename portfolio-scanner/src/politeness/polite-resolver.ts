// The resolver the scan engine uses: same interface as mailsec's (scanDomain and SharedDnsCache
// take any Resolver), but each query first waits for its budgets (query-grants.ts): the operator of
// the zone it falls in, the worker's, and a configured resolver's. Answers are kept here for their
// TTL, so a question asked twice (a scan's TXT and its SPF analysis) is neither sent nor charged
// twice; the upstream resolvers need no cache of their own.
//
// A zone's operator is learned once from its NS answer (which the scan's own NS question then reuses)
// and remembered for the NS TTL. A query the budgets would hold past maxWaitMs comes back as
// TIMEOUT, so scanDomain reports the fields it supports as unconfirmed, never as empty.
import { isDnsFailure, TtlCache, type Rcode, type Resolver, type ResolveResult, type RrType } from '@dv/mailsec';
import type { PolitenessMetrics } from './metrics.ts';
import { OTHER_OPERATOR } from './operator-table.ts';
import { nsDomain, zoneOf, type Operator, type OperatorBudgets } from './operators.ts';
import type { BudgetScheduler } from './query-grants.ts';

export interface Upstream {
  /** `host:port`, for logs. */
  name: string;
  resolver: Resolver;
}

export interface PoliteResolverOptions {
  /** One per DNS_SERVERS entry, in the scheduler's resolver order. */
  upstreams: readonly Upstream[];
  scheduler: BudgetScheduler;
  operators: OperatorBudgets;
  answerCacheMaxEntries: number;
  answerCacheMaxTtlS: number;
  zoneCacheMaxEntries: number;
  zoneCacheMaxTtlS: number;
  zoneFailureTtlS: number;
  maxWaitMs: number;
  /**
   * Attempts per question (DNS_RETRIES + 1, at least one per upstream), each charged to the
   * budgets: the upstream resolvers retry nothing themselves, or a retry would reach the operator
   * uncharged (under load, a timed-out query is often answered too, so both arrive).
   */
  attempts?: number;
  metrics?: PolitenessMetrics;
  nowMs?: () => number;
}

/** Worth asking again, another resolver first: the failure may be that resolver's (mailsec's DnsResolver does the same). */
const RETRY_ELSEWHERE = new Set<Rcode>(['SERVFAIL', 'REFUSED', 'TIMEOUT', 'ERROR']);

export class PoliteResolver implements Resolver {
  readonly #o: PoliteResolverOptions;
  readonly #answers: TtlCache<ResolveResult>;
  readonly #zones: TtlCache<Operator>;
  readonly #inflight = new Map<string, Promise<ResolveResult>>();

  constructor(options: PoliteResolverOptions) {
    if (options.upstreams.length === 0) throw new Error('no upstream resolvers');
    this.#o = options;
    this.#answers = new TtlCache({ maxEntries: options.answerCacheMaxEntries, nowMs: options.nowMs });
    this.#zones = new TtlCache({ maxEntries: options.zoneCacheMaxEntries, nowMs: options.nowMs });
  }

  async resolve<T extends RrType>(name: string, type: T): Promise<ResolveResult<T>> {
    const qname = name.toLowerCase().replace(/\.$/, '');
    const key = `${qname}|${type}`;
    const hit = this.#answers.get(key);
    if (hit) return { ...hit.value, answers: [...hit.value.answers], cnames: [...hit.value.cnames], ttl: hit.remainingS, fromCache: true } as unknown as ResolveResult<T>;
    let work = this.#inflight.get(key);
    if (!work) {
      work = this.#lookup(name, qname, type).finally(() => this.#inflight.delete(key));
      this.#inflight.set(key, work);
    }
    const result = await work;
    return { ...result, answers: [...result.answers], cnames: [...result.cnames] } as unknown as ResolveResult<T>;
  }

  /** The operator a name is charged to (learning its zone's NS when not known). */
  async operatorOf(name: string): Promise<Operator> {
    return this.#operatorOfZone(zoneOf(name.toLowerCase().replace(/\.$/, '')));
  }

  async #operatorOfZone(zone: string): Promise<Operator> {
    const known = this.#zones.get(zone);
    if (known) return known.value;
    const ns = await this.resolve(zone, 'NS');
    return this.#zones.get(zone)?.value ?? this.#learn(zone, ns as unknown as ResolveResult);
  }

  async #lookup(name: string, qname: string, type: RrType): Promise<ResolveResult> {
    const zone = zoneOf(qname);
    // A zone's own NS question is how its operator is learned. Unless a hint or an earlier answer
    // named the operator, it is sent on the worker's and a resolver's budget and debited to the
    // operator once the answer names it: the operator's average stays within its budget, and the
    // burst is bounded by the new zones of one operator a worker starts at once (see the docs).
    const ownNs = type === 'NS' && zone === qname;
    // The zone's operator is nearly always known: no promise then.
    const known = this.#zones.get(zone)?.value;
    const operator = ownNs ? (known ?? null) : (known ?? (await this.#operatorOfZone(zone)));
    const result = await this.#send(name, type, operator);
    if (!isDnsFailure(result.rcode)) this.#answers.set(`${qname}|${type}`, result, Math.min(result.ttl, this.#o.answerCacheMaxTtlS));
    // A failed NS answer names nobody: a zone whose operator is known (a rescan's hint, an earlier
    // answer) keeps it. Replacing it with the zone's own budget let the rest of a rescan (and the
    // every-vendor DKIM sweep its failures call for) reach the operator on top of its budget: a
    // budget refusal of the NS question under load did exactly that (46 queries in a second from
    // one replica against its 23, at small hosts in the benchmark's rescans).
    if (ownNs && (operator === null || !isDnsFailure(result.rcode))) {
      const learned = this.#learn(zone, result);
      if (operator === null) this.#o.scheduler.debit(learned);
    }
    return result;
  }

  /**
   * Names a zone's name servers before it is scanned (a rescan knows them from the stored `ns`),
   * so even its first question is charged to the right operator. The scan's own NS answer replaces it.
   */
  hintZone(domain: string, nsHosts: readonly string[]): void {
    const zone = zoneOf(domain.toLowerCase().replace(/\.$/, ''));
    const ns = nsDomain(nsHosts);
    if (ns && !this.#zones.get(zone)) this.#zones.set(zone, this.#o.operators.forNsDomain(ns), this.#o.zoneCacheMaxTtlS);
  }

  async #send(name: string, type: RrType, operator: Operator | null): Promise<ResolveResult> {
    const tried = new Set<number>();
    let result: ResolveResult | undefined;
    const attempts = Math.max(this.#o.upstreams.length, this.#o.attempts ?? 1);
    for (let attempt = 0; attempt < attempts; attempt++) {
      // Another resolver while one is left untried; then any (the scheduler allows all once all were tried).
      let grant = this.#o.scheduler.tryAcquire(operator, tried);
      if (grant) this.#o.metrics?.budgetWait.observe({ held_by: 'none' }, 0);
      else {
        const budget = this.#o.scheduler.heldBy(operator);
        // Listed operators (the table's large ones) apart from the rest (small hosts, each at the default budget).
        const heldBy = budget !== 'operator' ? budget : operator?.label === OTHER_OPERATOR ? 'other_operator' : 'listed_operator';
        const t0 = performance.now();
        grant = await this.#o.scheduler.acquire(operator, tried);
        this.#o.metrics?.budgetWait.observe({ held_by: heldBy }, (performance.now() - t0) / 1000);
      }
      if (!grant.ok) {
        this.#o.metrics?.budgetTimeouts.inc({ budget: grant.budget });
        // An earlier attempt's own failure says more than the budget's.
        return (
          result ?? {
            name,
            type,
            rcode: 'TIMEOUT',
            answers: [],
            cnames: [],
            authenticated: false,
            ttl: 0,
            fromCache: false,
            error: `DNS budget: no ${grant.budget === 'operator' ? `${operator?.label ?? ''} operator ` : 'worker '}budget within ${this.#o.maxWaitMs} ms`,
          }
        );
      }
      tried.add(grant.resolver);
      try {
        result = await (this.#o.upstreams[grant.resolver] as Upstream).resolver.resolve(name, type);
      } finally {
        // The query's place in its budgets' windows is dated from here (budget.ts).
        this.#o.scheduler.settle(grant);
      }
      this.#o.metrics?.queries.inc({ rcode: result.rcode, operator: operator?.label ?? 'other' });
      if (!RETRY_ELSEWHERE.has(result.rcode)) break;
    }
    return result as ResolveResult;
  }

  /** Remembers the zone's operator from its NS answer; a failed answer is retried after a short while. */
  #learn(zone: string, ns: ResolveResult): Operator {
    const hosts = ns.rcode === 'NOERROR' ? ns.answers.flatMap((a) => (a.type === 'NS' ? [a.host] : [])) : [];
    const domain = nsDomain(hosts);
    const operator = domain ? this.#o.operators.forNsDomain(domain) : this.#o.operators.forUnknownZone(zone);
    const ttlS = isDnsFailure(ns.rcode) ? this.#o.zoneFailureTtlS : Math.min(Math.max(ns.ttl, this.#o.zoneFailureTtlS), this.#o.zoneCacheMaxTtlS);
    this.#zones.set(zone, operator, ttlS);
    return operator;
  }
}
