import type { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';

// A counter per subject per UTC calendar day, in Redis (so every replica shares it) through
// rate-limiter-flexible. The UTC date is part of the key, so every window ends at 00:00 UTC for
// every client at once: a reset time the docs can state and `Retry-After` can point at.

const DAY_MS = 86_400_000;

export function utcDay(nowMs: number): string {
  return new Date(nowMs).toISOString().slice(0, 10);
}

export function nextUtcMidnightMs(nowMs: number): number {
  return (Math.floor(nowMs / DAY_MS) + 1) * DAY_MS;
}

export interface DailyState {
  allowed: boolean;
  limit: number;
  used: number;
  remaining: number;
  resetAtMs: number;
}

export interface DailyTake extends DailyState {
  /** Gives the point back (a lookup that failed on our side must not cost the client). */
  refund(): Promise<void>;
}

export class DailyLimiter {
  readonly limit: number;
  private readonly limiter: RateLimiterRedis;
  private readonly now: () => number;

  constructor(opts: { redis: Redis; keyPrefix: string; limit: number; now?: () => number }) {
    this.limit = opts.limit;
    this.now = opts.now ?? Date.now;
    // `duration` is only the fallback TTL: every key is created with the seconds left in its day.
    this.limiter = new RateLimiterRedis({ storeClient: opts.redis, keyPrefix: opts.keyPrefix, points: opts.limit, duration: DAY_MS / 1000, rejectIfRedisNotReady: true });
  }

  /** Spends one point if any is left; a refusal spends nothing that matters (the day is already used up). */
  async take(subject: string): Promise<DailyTake> {
    const nowMs = this.now();
    const key = `${utcDay(nowMs)}:${subject}`;
    const resetAtMs = nextUtcMidnightMs(nowMs);
    // A minute past midnight, so a key created at 23:59:59.9 never outlives the day by rounding.
    const customDuration = Math.ceil((resetAtMs - nowMs) / 1000) + 60;
    let res: RateLimiterRes;
    let allowed = true;
    try {
      res = await this.limiter.consume(key, 1, { customDuration });
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw err;
      res = err;
      allowed = false;
    }
    const used = Math.min(res.consumedPoints, this.limit);
    let refunded = !allowed;
    return {
      allowed,
      limit: this.limit,
      used,
      remaining: Math.max(0, this.limit - res.consumedPoints),
      resetAtMs,
      refund: async () => {
        if (refunded) return;
        refunded = true;
        await this.limiter.reward(key, 1);
      },
    };
  }

  /** Forgets today's count of a subject (the admin CLI's quota reset); true when there was one. */
  async reset(subject: string): Promise<boolean> {
    return this.limiter.delete(`${utcDay(this.now())}:${subject}`);
  }

  /** The state without spending anything (cached answers, the limits endpoint). */
  async peek(subject: string): Promise<DailyState> {
    const nowMs = this.now();
    const res = await this.limiter.get(`${utcDay(nowMs)}:${subject}`);
    const consumed = Math.max(0, res?.consumedPoints ?? 0);
    return { allowed: consumed < this.limit, limit: this.limit, used: Math.min(consumed, this.limit), remaining: Math.max(0, this.limit - consumed), resetAtMs: nextUtcMidnightMs(nowMs) };
  }
}
