// The stub resolver: asks the configured upstream servers (UDP through a shared socket pool, TCP
// when a reply is truncated), retries, caches by TTL, and turns replies into typed results.
import type net from 'node:net';
import { TtlCache } from './cache.ts';
import { Limiter } from './limiter.ts';
import { parseServers, type UpstreamServer } from './servers.ts';
import { UdpPool, type UdpTransport } from './udp-pool.ts';
import type { UdpBatchAddon } from './native.ts';
import { tcpExchange } from './tcp.ts';
import { encodeQuery, type DecodedMessage } from './wire.ts';
import type { ExchangeOutcome } from './exchange.ts';
import { interpretReply, failure, normalizeQueryName } from './interpret.ts';
import type { Rcode, ResolveResult, Resolver, RrType } from './types.ts';

/** Every tunable with its default; durations carry their unit. */
export const RESOLVER_DEFAULTS = {
  /** Wait for one reply before retrying. */
  timeoutMs: 2000,
  /** Extra attempts after the first (rotating through the servers). */
  retries: 2,
  /** UDP sockets per upstream server, shared by all queries to it. */
  poolSize: 4,
  /** Queries on the wire at once; further queries wait their turn. */
  maxOutstanding: 64,
  /** EDNS0 UDP payload size: 1232 avoids IP fragmentation (DNS Flag Day 2020). */
  udpPayloadSize: 1232,
  /** Set the DO bit so validating upstreams report DNSSEC status (AD bit). */
  dnssecOk: true,
  /** Cached results; 0 disables the cache. */
  cacheMaxEntries: 10_000,
  /** Negative-cache lifetime when the reply carries no SOA (RFC 2308). */
  negativeTtlS: 300,
  /** Upper bound on any cached lifetime. */
  maxTtlS: 86_400,
  /** Largest reply accepted (UDP datagram or TCP message). */
  maxResponseBytes: 65_535,
  /** Most records accepted in one reply. */
  maxRecords: 1000,
  /** CNAME links followed across separate queries. */
  maxCnameDepth: 8,
} as const;

export interface DnsResolverOptions {
  /** `host` / `host:port` list (array or the DNS_SERVERS comma-separated string). */
  servers: string | readonly string[] | readonly UpstreamServer[];
  timeoutMs?: number;
  retries?: number;
  poolSize?: number;
  maxOutstanding?: number;
  udpPayloadSize?: number;
  dnssecOk?: boolean;
  cacheMaxEntries?: number;
  negativeTtlS?: number;
  maxTtlS?: number;
  maxResponseBytes?: number;
  maxRecords?: number;
  maxCnameDepth?: number;
  /** Milliseconds clock for the cache; tests inject one. */
  nowMs?: () => number;
  /**
   * UDP sockets: `auto` (default) uses the udp_batch addon (batched recvmmsg/sendmmsg) when it is
   * built and falls back to node:dgram; `dgram` forces the fallback; `native` requires the addon.
   */
  udpTransport?: UdpTransport;
  /** Tests only: the addon to use (null: behave as if it were not built). */
  udpAddon?: UdpBatchAddon | null;
}

export interface ResolverStats {
  udpQueries: number;
  tcpQueries: number;
  timeouts: number;
  cacheHits: number;
  droppedReplies: number;
  maxInFlight: number;
  /** The UDP implementation in use: `native` (udp_batch addon) or `dgram`. */
  udpTransport: 'native' | 'dgram';
}

type Settings = { -readonly [K in keyof typeof RESOLVER_DEFAULTS]: (typeof RESOLVER_DEFAULTS)[K] extends boolean ? boolean : number };

export class DnsResolver implements Resolver {
  readonly #servers: UpstreamServer[];
  readonly #settings: Settings;
  readonly #cache: TtlCache<ResolveResult>;
  readonly #limiter: Limiter;
  readonly #pool: UdpPool;
  readonly #tcpSockets = new Set<net.Socket>();
  readonly #inflight = new Map<string, Promise<ResolveResult>>();
  /** Servers that answered FORMERR/NOTIMP to EDNS: asked plainly from then on. */
  readonly #noEdns = new Set<UpstreamServer>();
  #closed = false;
  #inFlightNow = 0;
  readonly #stats: Omit<ResolverStats, 'udpTransport'> = { udpQueries: 0, tcpQueries: 0, timeouts: 0, cacheHits: 0, droppedReplies: 0, maxInFlight: 0 };

  constructor(options: DnsResolverOptions) {
    const { servers, nowMs, udpTransport, udpAddon, ...rest } = options;
    this.#servers = typeof servers === 'string' || isStringList(servers) ? parseServers(servers) : [...servers];
    if (this.#servers.length === 0) throw new Error('no DNS servers configured');
    const settings = { ...RESOLVER_DEFAULTS } as Settings;
    for (const [k, v] of Object.entries(rest)) if (v !== undefined && k in settings) (settings as Record<string, unknown>)[k] = v;
    this.#settings = settings;
    this.#cache = new TtlCache({ maxEntries: settings.cacheMaxEntries, nowMs });
    this.#limiter = new Limiter(settings.maxOutstanding);
    this.#pool = new UdpPool({
      size: settings.poolSize,
      maxResponseBytes: settings.maxResponseBytes,
      maxRecords: settings.maxRecords,
      ...(udpTransport ? { transport: udpTransport } : {}),
      ...(udpAddon !== undefined ? { addon: udpAddon } : {}),
    });
  }

  stats(): ResolverStats {
    return { ...this.#stats, droppedReplies: this.#pool.dropped, udpTransport: this.#pool.transport };
  }

  async resolve<T extends RrType>(name: string, type: T): Promise<ResolveResult<T>> {
    return (await this.#resolveAny(name, type, [])) as unknown as ResolveResult<T>;
  }

  /** Forgets every cached answer (e.g. answers kept while the upstream was lying). */
  clearCache(): void {
    this.#cache.clear();
  }

  /** Releases every socket and timer; pending and later lookups end with rcode ERROR. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#limiter.close();
    this.#pool.close();
    for (const s of this.#tcpSockets) s.destroy();
    this.#tcpSockets.clear();
    this.#cache.clear();
  }

  async #resolveAny(name: string, type: RrType, chain: string[]): Promise<ResolveResult> {
    const normalized = normalizeQueryName(name);
    if (!normalized.ok) return failure(name, type, 'ERROR', normalized.error);
    const qname = normalized.name;
    if (this.#closed) return failure(qname, type, 'ERROR', 'resolver closed');
    const key = `${qname.toLowerCase()}|${type}`;
    const cached = this.#cache.get(key);
    if (cached) {
      this.#stats.cacheHits++;
      return { ...copy(cached.value), ttl: cached.remainingS, fromCache: true };
    }
    // Concurrent identical lookups share one query, except inside a CNAME chase, where waiting on
    // a name already being chased would wait on ourselves.
    const shared = chain.length === 0 ? this.#inflight.get(key) : undefined;
    if (shared) return copy(await shared);
    const work = this.#lookup(qname, type, chain);
    if (chain.length === 0) this.#inflight.set(key, work);
    try {
      const result = await work;
      if (!this.#closed && this.#settings.cacheMaxEntries > 0 && (result.rcode === 'NOERROR' || result.rcode === 'NODATA' || result.rcode === 'NXDOMAIN')) {
        this.#cache.set(key, copy(result), result.ttl);
      }
      return result;
    } finally {
      if (chain.length === 0) this.#inflight.delete(key);
    }
  }

  async #lookup(qname: string, type: RrType, chain: string[]): Promise<ResolveResult> {
    // A free slot is taken synchronously; only a full limiter costs a wait.
    const slot = this.#limiter.tryAcquire() || (await this.#limiter.acquire());
    if (!slot) return failure(qname, type, 'ERROR', 'resolver closed');
    this.#inFlightNow++;
    this.#stats.maxInFlight = Math.max(this.#stats.maxInFlight, this.#inFlightNow);
    let reply: { message: DecodedMessage } | { rcode: Rcode; error: string };
    try {
      reply = await this.#query(qname, type);
    } finally {
      this.#inFlightNow--;
      this.#limiter.release();
    }
    if (!('message' in reply)) return failure(qname, type, reply.rcode, reply.error);
    const interpreted = interpretReply(reply.message, qname, type, this.#settings);
    if (interpreted.kind === 'result') return interpreted.result;
    // The reply stopped at a CNAME whose target it did not include: ask for the target.
    const visited = [...chain, qname.toLowerCase(), ...interpreted.cnames.slice(0, -1).map((c) => c.toLowerCase())];
    if (visited.includes(interpreted.target.toLowerCase())) return failure(qname, type, 'SERVFAIL', 'CNAME loop');
    if (visited.length >= this.#settings.maxCnameDepth) return failure(qname, type, 'SERVFAIL', 'CNAME chain too long');
    const next = await this.#resolveAny(interpreted.target, type, visited);
    if (next.rcode === 'SERVFAIL' && next.error?.startsWith('CNAME')) return failure(qname, type, 'SERVFAIL', next.error);
    return {
      ...next,
      name: qname,
      cnames: [...interpreted.cnames, ...next.cnames],
      authenticated: reply.message.ad && next.authenticated,
      ttl: Math.min(interpreted.ttl, next.ttl),
      fromCache: false,
    };
  }

  /** Tries the servers in turn until one gives a usable reply or the attempts run out. */
  async #query(qname: string, type: RrType): Promise<{ message: DecodedMessage } | { rcode: Rcode; error: string }> {
    const attempts = 1 + Math.max(0, this.#settings.retries);
    let last: { message: DecodedMessage } | { rcode: Rcode; error: string } = { rcode: 'TIMEOUT', error: 'no reply' };
    for (let attempt = 0; attempt < attempts && !this.#closed; attempt++) {
      const server = this.#servers[attempt % this.#servers.length] as UpstreamServer;
      const outcome = await this.#ask(server, qname, type);
      if (outcome.kind === 'timeout') {
        this.#stats.timeouts++;
        last = { rcode: 'TIMEOUT', error: `no reply from ${server.host}:${server.port}` };
        continue;
      }
      if (outcome.kind === 'error') {
        last = { rcode: 'ERROR', error: outcome.error };
        continue;
      }
      const rcode = outcome.message.rcode;
      // SERVFAIL/REFUSED may be one server's problem: try a server not yet asked, if any.
      if ((rcode === 2 || rcode === 5) && this.#untriedServerAfter(attempt)) {
        last = { message: outcome.message };
        continue;
      }
      return { message: outcome.message };
    }
    return last;
  }

  /** Whether a server exists that attempts 0..attempt did not ask (they rotate through the list). */
  #untriedServerAfter(attempt: number): boolean {
    const tried = new Set<UpstreamServer>();
    for (let a = 0; a <= attempt; a++) tried.add(this.#servers[a % this.#servers.length] as UpstreamServer);
    return this.#servers.some((s) => !tried.has(s));
  }

  /** One exchange with one server: UDP, then TCP if truncated, then plain DNS if EDNS is refused. */
  async #ask(server: UpstreamServer, qname: string, type: RrType): Promise<ExchangeOutcome> {
    const s = this.#settings;
    const plain = this.#noEdns.has(server);
    const request = {
      server,
      name: qname,
      type,
      timeoutMs: s.timeoutMs,
      encode: (id: number) =>
        encodeQuery({ id, name: qname, type, edns: plain ? null : { udpPayloadSize: s.udpPayloadSize, dnssecOk: s.dnssecOk } }),
    };
    this.#stats.udpQueries++;
    let outcome = await this.#pool.exchange(request);
    if (outcome.kind === 'reply' && !plain && (outcome.message.rcode === 1 || outcome.message.rcode === 4)) {
      // RFC 6891 7: a server that does not understand EDNS answers FORMERR/NOTIMP; ask again plainly.
      this.#noEdns.add(server);
      return this.#ask(server, qname, type);
    }
    if (outcome.kind === 'reply' && outcome.message.tc) {
      this.#stats.tcpQueries++;
      outcome = await tcpExchange(request, { maxResponseBytes: s.maxResponseBytes, maxRecords: s.maxRecords }, this.#tcpSockets);
    }
    return outcome;
  }
}

function isStringList(v: readonly string[] | readonly UpstreamServer[]): v is readonly string[] {
  return v.every((x) => typeof x === 'string');
}

/** Results handed out never share arrays with the cache, so callers may sort or filter them. */
function copy(result: ResolveResult): ResolveResult {
  return { ...result, answers: [...result.answers], cnames: [...result.cnames] };
}
