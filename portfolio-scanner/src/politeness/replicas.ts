// How many worker replicas share the DNS and RDAP budgets. Budgets are enforced in each process
// (a Redis round trip per DNS query would cost more than the query), so each replica takes
// budget / live replicas. Liveness is a heartbeat in one Redis sorted set (member = replica id,
// score = last beat, Redis's clock so replicas' clocks need not agree); a replica that stops
// beating drops out after the TTL and the others' shares grow back. While Redis is unreachable the
// last count stays: a replica never assumes it is alone because it cannot see the others.
import type { RedisDependency } from '@dv/runtime';

type Redis = RedisDependency['redis'];

export const REPLICAS_KEY = 'portfolio:budget:replicas';

export interface ReplicaHeartbeatOptions {
  id: string;
  heartbeatMs: number;
  ttlMs: number;
  /** Called with the live count (at least 1) after each beat. */
  onCount: (replicas: number) => void;
  onError?: (err: Error) => void;
  key?: string;
}

export class ReplicaHeartbeat {
  readonly #redis: Redis;
  readonly #o: ReplicaHeartbeatOptions;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;

  constructor(redis: Redis, options: ReplicaHeartbeatOptions) {
    this.#redis = redis;
    this.#o = options;
  }

  /** Beats once (so the first share is known before any scan) and then every heartbeatMs. */
  async start(): Promise<void> {
    await this.beat();
    const tick = () => {
      this.#timer = setTimeout(() => {
        void this.beat().finally(() => {
          if (!this.#stopped) tick();
        });
      }, this.#o.heartbeatMs);
      this.#timer.unref();
    };
    tick();
  }

  async beat(): Promise<number | undefined> {
    const key = this.#o.key ?? REPLICAS_KEY;
    try {
      const [seconds, micros] = await this.#redis.time();
      const nowMs = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
      const res = await this.#redis
        .multi()
        .zadd(key, nowMs, this.#o.id)
        .zremrangebyscore(key, '-inf', nowMs - this.#o.ttlMs)
        .zcard(key)
        .pexpire(key, this.#o.ttlMs * 4)
        .exec();
      const count = Math.max(1, Number(res?.[2]?.[1] ?? 1));
      if (!this.#stopped) this.#o.onCount(count);
      return count;
    } catch (err) {
      this.#o.onError?.(err as Error);
      return undefined;
    }
  }

  /** Leaves the set at once, so the other replicas' shares grow back without waiting for the TTL. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    try {
      await this.#redis.zrem(this.#o.key ?? REPLICAS_KEY, this.#o.id);
    } catch {
      // unreachable Redis: the TTL removes us
    }
  }
}
