// A bounded map whose entries expire: least recently used out first (Map keeps insertion order;
// a hit moves the entry to the end).

export class TtlLru<V> {
  readonly #entries = new Map<string, { value: V; expiresAtMs: number }>();
  readonly #maxEntries: number;
  readonly #nowMs: () => number;

  constructor(maxEntries: number, nowMs: () => number = Date.now) {
    this.#maxEntries = maxEntries;
    this.#nowMs = nowMs;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The value and its remaining seconds, or undefined when absent or expired. */
  get(key: string): { value: V; remainingS: number } | undefined {
    const e = this.#entries.get(key);
    if (!e) return undefined;
    const left = e.expiresAtMs - this.#nowMs();
    if (left <= 0) {
      this.#entries.delete(key);
      return undefined;
    }
    this.#entries.delete(key);
    this.#entries.set(key, e);
    return { value: e.value, remainingS: Math.ceil(left / 1000) };
  }

  set(key: string, value: V, ttlS: number): void {
    if (this.#maxEntries <= 0 || ttlS <= 0) return;
    this.#entries.delete(key);
    this.#entries.set(key, { value, expiresAtMs: this.#nowMs() + ttlS * 1000 });
    while (this.#entries.size > this.#maxEntries) {
      const oldest = this.#entries.keys().next().value as string;
      this.#entries.delete(oldest);
    }
  }
}
