import type { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';

// Abuse before authentication. A request that presents a credential nobody has seen costs the
// service a MongoDB read to find that out, and nothing about the caller is known yet to limit it
// by, except the address it comes from. Two shields, shared by every service that checks keys:
// - AuthAttemptLimiter: points per client address per minute, counted in Redis (so they hold
//   across replicas). Every lookup in the key store costs a point; a failed one costs more, so a
//   client with a good key is limited far later than one guessing keys. While an address is over,
//   it is refused from process memory without asking Redis again.
// - NegativeCache: a credential just found to be unknown is remembered briefly in process, so a
//   client repeating it costs no store read. The caller decides what may be remembered (never a
//   key that exists and is active: its public prefix is no secret, and remembering it would let
//   anyone lock its owner out) and drops entries when the store changes.

/** Named control-flow error: the address used its allowance; retry after `retryAfterSeconds`. */
export class TooManyAuthAttempts extends Error {
  readonly retryAfterSeconds: number;

  constructor(retryAfterSeconds: number) {
    super(`too many authentication attempts; retry in ${retryAfterSeconds} s`);
    this.name = 'TooManyAuthAttempts';
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

export interface AuthAttemptLimiterOptions {
  redis: Redis;
  /** Redis key prefix (the service's own prefix plus a name). */
  keyPrefix: string;
  /** Points per address per minute; 0 turns the limiter off. */
  pointsPerMinute: number;
  /** What a failed attempt costs in all (at least 1: the attempt itself). */
  failurePoints: number;
}

export class AuthAttemptLimiter {
  private readonly limiter: RateLimiterRedis | null;
  private readonly extraOnFailure: number;

  constructor(opts: AuthAttemptLimiterOptions) {
    this.extraOnFailure = Math.max(0, opts.failurePoints - 1);
    this.limiter =
      opts.pointsPerMinute > 0
        ? new RateLimiterRedis({
            storeClient: opts.redis,
            keyPrefix: opts.keyPrefix,
            points: opts.pointsPerMinute,
            duration: 60,
            useRedisPackage: false,
            // Once over, the address is refused from memory until its minute ends: a flood costs
            // neither the key store nor Redis.
            inMemoryBlockOnConsumed: opts.pointsPerMinute + 1,
          })
        : null;
  }

  get enabled(): boolean {
    return this.limiter !== null;
  }

  /** One attempt from `subject` (a client address); throws TooManyAuthAttempts when over. */
  async attempt(subject: string): Promise<void> {
    if (!this.limiter) return;
    try {
      await this.limiter.consume(subject, 1);
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw err;
      throw new TooManyAuthAttempts(Math.max(1, Math.ceil(err.msBeforeNext / 1000)));
    }
  }

  /** The attempt failed (unknown or wrong credential): charge the rest of its cost. Never throws. */
  async failed(subject: string): Promise<void> {
    if (!this.limiter || this.extraOnFailure === 0) return;
    await this.limiter.penalty(subject, this.extraOnFailure).catch(() => undefined);
  }
}

export interface NegativeCacheOptions {
  /** How long an entry is believed; 0 turns the cache off. */
  ttlMs: number;
  /** Bound on memory: past it the oldest entries go first. */
  maxEntries: number;
  now?: () => number;
}

/** Credentials known, a moment ago, to be unknown. In process, bounded, short-lived. */
export class NegativeCache {
  private readonly entries = new Map<string, number>();
  private readonly opts: NegativeCacheOptions;
  private readonly now: () => number;
  /** Bumped by every clear/delete, so a lookup that raced with a store change is not remembered. */
  private generation = 0;

  constructor(opts: NegativeCacheOptions) {
    this.opts = opts;
    this.now = opts.now ?? Date.now;
  }

  has(key: string): boolean {
    const expiresAt = this.entries.get(key);
    if (expiresAt === undefined) return false;
    if (expiresAt > this.now()) return true;
    this.entries.delete(key);
    return false;
  }

  /** The generation to hand back to `add`: read it before the store lookup. */
  get mark(): number {
    return this.generation;
  }

  /**
   * Remembers `key` as unknown, unless the store changed since `mark` was read (a key created
   * while the lookup was in flight must not be refused for the next ttlMs).
   */
  add(key: string, mark: number): void {
    if (this.opts.ttlMs <= 0 || mark !== this.generation) return;
    this.entries.delete(key);
    this.entries.set(key, this.now() + this.opts.ttlMs);
    while (this.entries.size > this.opts.maxEntries) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
  }

  delete(key: string): void {
    this.generation++;
    this.entries.delete(key);
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
