// The cache of what many domains share: vendor SPF include trees (_spf.google.com and the
// _netblocks under it), vendor MX hosts and their addresses, report-authorization names, PTR names
// of shared hosting. The resolver's own LRU also holds every per-domain answer, and a pass over a
// large portfolio pushes millions of those through it; vendor names would be evicted between two
// Google-hosted domains and their trees walked again. Here only names outside the scanned domain's
// organizational domain are kept, so per-domain names never compete with them.
//
// Only confirmed answers (NOERROR, NODATA, NXDOMAIN) are kept, for their TTL (capped); a failure
// is never remembered, so the next scan asks again.
import { organizationalDomain, TtlCache, type Resolver, type ResolveResult, type RrType } from '@dv/mailsec';

export interface SharedDnsCacheOptions {
  /** Names kept at most; the least recently used goes first. */
  maxEntries: number;
  /** Upper bound on how long an answer is kept, whatever its TTL. */
  maxTtlS: number;
  /** Milliseconds clock; tests move time. */
  nowMs?: () => number;
}

/** A resolver for one scan: `queries` counts the lookups no cache answered. */
export interface ScanResolver extends Resolver {
  readonly queries: number;
}

export interface SharedDnsCacheStats {
  hits: number;
  misses: number;
  entries: number;
}

export class SharedDnsCache {
  readonly #entries: TtlCache<ResolveResult>;
  readonly #inflight = new Map<string, Promise<ResolveResult>>();
  readonly #options: SharedDnsCacheOptions;
  #hits = 0;
  #misses = 0;

  constructor(options: SharedDnsCacheOptions) {
    this.#options = options;
    this.#entries = new TtlCache({ maxEntries: options.maxEntries, nowMs: options.nowMs });
  }

  stats(): SharedDnsCacheStats {
    return { hits: this.#hits, misses: this.#misses, entries: this.#entries.size };
  }

  /**
   * A resolver for one scan of `domain` over `base`: names at or under the domain's
   * organizational domain go to `base` as they are; every other name is answered from here when
   * it can be. Each scan gets its own, so its query count is its own.
   */
  scope(domain: string, base: Resolver): ScanResolver {
    const own = organizationalDomain(normalize(domain));
    const isOwn = (name: string): boolean => name === own || name.endsWith(`.${own}`);
    let queries = 0;
    const count = (result: { fromCache: boolean }): void => {
      if (!result.fromCache) queries++;
    };
    return {
      get queries() {
        return queries;
      },
      resolve: async <T extends RrType>(name: string, type: T): Promise<ResolveResult<T>> => {
        const n = normalize(name);
        if (isOwn(n)) {
          const result = await base.resolve(name, type);
          count(result);
          return result;
        }
        const { result, fresh } = await this.#resolveShared(n, type, base);
        if (fresh) count(result);
        return result as unknown as ResolveResult<T>;
      },
    };
  }

  async #resolveShared(name: string, type: RrType, base: Resolver): Promise<{ result: ResolveResult; fresh: boolean }> {
    const key = `${name}|${type}`;
    const entry = this.#entries.get(key);
    if (entry) {
      this.#hits++;
      return { result: { ...copy(entry.value), ttl: entry.remainingS, fromCache: true }, fresh: false };
    }
    // Scans running side by side wait for the one lookup already on its way.
    const pending = this.#inflight.get(key);
    if (pending) {
      this.#hits++;
      return { result: { ...copy(await pending), fromCache: true }, fresh: false };
    }
    this.#misses++;
    const work = base.resolve(name, type) as Promise<ResolveResult>;
    this.#inflight.set(key, work);
    try {
      const result = await work;
      this.#store(key, result);
      return { result: copy(result), fresh: true };
    } finally {
      this.#inflight.delete(key);
    }
  }

  #store(key: string, result: ResolveResult): void {
    const confirmed = result.rcode === 'NOERROR' || result.rcode === 'NODATA' || result.rcode === 'NXDOMAIN';
    const ttlS = Math.min(result.ttl, this.#options.maxTtlS);
    if (confirmed) this.#entries.set(key, copy(result), ttlS);
  }
}

function normalize(name: string): string {
  return name.toLowerCase().replace(/\.$/, '');
}

/** Callers may sort what they get; the cached arrays stay untouched. */
function copy(result: ResolveResult): ResolveResult {
  return { ...result, answers: [...result.answers], cnames: [...result.cnames] };
}
