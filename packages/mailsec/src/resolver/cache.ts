// A bounded TTL cache for lookup results. Map insertion order doubles as LRU order: a hit moves
// the entry to the back, and the front is evicted when the cap is reached.

export interface TtlCacheOptions {
  maxEntries: number;
  /** Milliseconds clock; injectable so tests can move time. */
  nowMs?: () => number;
}

interface Entry<V> {
  value: V;
  expiresAtMs: number;
}

export class TtlCache<V> {
  readonly #entries = new Map<string, Entry<V>>();
  readonly #maxEntries: number;
  readonly #nowMs: () => number;

  constructor(options: TtlCacheOptions) {
    this.#maxEntries = Math.max(0, options.maxEntries);
    this.#nowMs = options.nowMs ?? Date.now;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The value and its remaining lifetime in whole seconds (rounded up), or undefined. */
  get(key: string): { value: V; remainingS: number } | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    const remainingMs = entry.expiresAtMs - this.#nowMs();
    if (remainingMs <= 0) {
      this.#entries.delete(key);
      return undefined;
    }
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return { value: entry.value, remainingS: Math.ceil(remainingMs / 1000) };
  }

  set(key: string, value: V, ttlS: number): void {
    if (ttlS <= 0 || this.#maxEntries === 0) return;
    this.#entries.delete(key);
    while (this.#entries.size >= this.#maxEntries) {
      const oldest = this.#entries.keys().next();
      if (oldest.done) break;
      this.#entries.delete(oldest.value);
    }
    this.#entries.set(key, { value, expiresAtMs: this.#nowMs() + ttlS * 1000 });
  }

  clear(): void {
    this.#entries.clear();
  }
}
