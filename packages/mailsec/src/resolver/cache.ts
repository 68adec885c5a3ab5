// A bounded TTL cache for lookup results (the resolver's, and the portfolio scanner's answer,
// zone and shared vendor caches): least recently used out first, each entry for its own TTL. Over lru-cache, whose
// linked list evicts in constant time: a Map used as the LRU (delete the first key, re-insert on a
// hit) left a deleted slot at the front of V8's hash table per eviction, and each next eviction
// walked all of them, ~8 µs a store at 10,000 entries against 0.8 at 1,000 (a scan worker stores
// a dozen answers per domain).
import { LRUCache } from 'lru-cache';

export interface TtlCacheOptions {
  maxEntries: number;
  /** Milliseconds clock; injectable so tests can move time (Date.now when absent). */
  nowMs?: (() => number) | undefined;
}

export class TtlCache<V extends NonNullable<unknown>> {
  readonly #lru: LRUCache<string, V> | null;

  constructor(options: TtlCacheOptions) {
    const max = Math.max(0, Math.floor(options.maxEntries));
    const nowMs = options.nowMs ?? Date.now;
    // lru-cache reads a start time of 0 as "no TTL": a test clock starting at 0 is shifted by one.
    // ttlResolution 0: it reads the clock each time (its default caches it for 1 ms of real time,
    // which a test clock moved by hand would not see).
    this.#lru = max === 0 ? null : new LRUCache<string, V>({ max, ttlResolution: 0, perf: { now: () => nowMs() + 1 } });
  }

  get size(): number {
    return this.#lru?.size ?? 0;
  }

  /** The value and its remaining lifetime in whole seconds (rounded up), or undefined. */
  get(key: string): { value: V; remainingS: number } | undefined {
    const lru = this.#lru;
    const value = lru?.get(key);
    if (lru === null || value === undefined) return undefined;
    return { value, remainingS: Math.ceil(lru.getRemainingTTL(key) / 1000) };
  }

  set(key: string, value: V, ttlS: number): void {
    if (ttlS <= 0 || this.#lru === null) return;
    this.#lru.set(key, value, { ttl: ttlS * 1000 });
  }

  clear(): void {
    this.#lru?.clear();
  }
}
