// Small in-process helpers that spare a round trip per item: a short-lived memo of shared (Redis)
// facts, and a loader that turns many findOne calls of one moment into one `$in` query.

/**
 * Remembers values for `ttlMs`; concurrent misses for one key share one fetch. `keep` says which
 * fetched values are remembered (the others are only shared by the misses in flight).
 */
export class Memo<V> {
  private readonly values = new Map<string, { v: V; untilMs: number }>();
  private readonly pending = new Map<string, Promise<V>>();
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly keep: (v: V) => boolean;

  constructor(ttlMs: number, maxEntries = 20_000, keep: (v: V) => boolean = () => true) {
    this.ttlMs = ttlMs;
    this.maxEntries = maxEntries;
    this.keep = keep;
  }

  async get(key: string, fetch: () => Promise<V>, ttlMs: number = this.ttlMs): Promise<V> {
    const hit = this.values.get(key);
    if (hit && hit.untilMs > Date.now()) return hit.v;
    let p = this.pending.get(key);
    if (!p) {
      p = fetch().then((v) => {
        if (!this.keep(v)) return v;
        if (this.values.size >= this.maxEntries) this.values.clear();
        this.values.set(key, { v, untilMs: Date.now() + ttlMs });
        return v;
      });
      p.finally(() => this.pending.delete(key)).catch(() => undefined);
      this.pending.set(key, p);
    }
    return p;
  }

  set(key: string, v: V, ttlMs: number = this.ttlMs): void {
    this.values.set(key, { v, untilMs: Date.now() + ttlMs });
  }
}

/** Coalesces lookups by id made within `windowMs` into one query. */
export class BatchLoader<V> {
  private queue = new Map<string, Array<{ resolve: (v: V | null) => void; reject: (e: unknown) => void }>>();
  private timer: NodeJS.Timeout | null = null;
  private readonly load: (ids: string[]) => Promise<Map<string, V>>;
  private readonly windowMs: number;
  private readonly max: number;

  constructor(load: (ids: string[]) => Promise<Map<string, V>>, windowMs = 5, max = 500) {
    this.load = load;
    this.windowMs = windowMs;
    this.max = max;
  }

  get(id: string): Promise<V | null> {
    return new Promise((resolve, reject) => {
      const waiters = this.queue.get(id) ?? [];
      waiters.push({ resolve, reject });
      this.queue.set(id, waiters);
      if (this.queue.size >= this.max) this.flush();
      else this.timer ??= setTimeout(() => this.flush(), this.windowMs);
    });
  }

  private flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.queue;
    this.queue = new Map();
    if (batch.size === 0) return;
    this.load([...batch.keys()]).then(
      (found) => {
        for (const [id, waiters] of batch) for (const w of waiters) w.resolve(found.get(id) ?? null);
      },
      (err: unknown) => {
        for (const waiters of batch.values()) for (const w of waiters) w.reject(err);
      },
    );
  }
}
