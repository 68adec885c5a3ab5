import type { Redis } from 'ioredis';

// A counter per subject per UTC calendar day, in Redis so every replica shares it: the lookup's
// daily allowances and free-key request limits, the gateway's live emails per day, the portfolio
// API's calls per day. The UTC date is part of the key, so every window ends at 00:00 UTC for
// every client at once: a reset time the docs can state and `Retry-After` can point at.
//
// A key holds a plain integer, as rate-limiter-flexible kept it (the services used it before), so
// counters written by either are read by both: `<keyPrefix>:<day>:<subject>` or
// `<keyPrefix>:<subject>:<day>` (keyOrder), day as YYYY-MM-DD.

const DAY_MS = 86_400_000;
// A key lives a minute past its day, so one created at 23:59:59.9 never outlives it by rounding
// and a Redis clock a little behind ours still finds it until the day is over.
const KEY_GRACE_MS = 60_000;

export function utcDay(nowMs: number): string {
  return new Date(nowMs).toISOString().slice(0, 10);
}

export function nextUtcMidnightMs(nowMs: number): number {
  return (Math.floor(nowMs / DAY_MS) + 1) * DAY_MS;
}

/**
 * The Lua function `day_take(key, n, limit, ttl_ms)`: adds `n` to the day's count unless that
 * would go over `limit` (a refused take counts nothing), gives a new key its time to live, and
 * returns (1 taken | 0 refused, the count after). For scripts that take a day's points together
 * with something else in one atomic step (the portfolio API's minute and day limits).
 */
export const DAY_TAKE_LUA = `
local function day_take(key, n, limit, ttl_ms)
  local count = redis.call('INCRBY', key, n)
  if redis.call('PTTL', key) < 0 then redis.call('PEXPIRE', key, ttl_ms) end
  if count > limit then
    return 0, redis.call('DECRBY', key, n)
  end
  return 1, count
end
`;

const TAKE = `${DAY_TAKE_LUA}
local taken, count = day_take(KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]))
return {taken, count}
`;

// A refund never recreates a key that has expired meanwhile (it would have no time to live).
const GIVE = `
if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('DECRBY', KEYS[1], ARGV[1]) end
return 0
`;

export interface DayState {
  allowed: boolean;
  limit: number;
  /** Today's count (after a take: with it; after a refused one: without it). */
  count: number;
  /** Today's count, at most `limit`. */
  used: number;
  remaining: number;
  resetAtMs: number;
}

export interface DayTake extends DayState {
  /** Gives the points back (work that failed on our side must not cost the client); once only, nothing for a refused take. */
  refund(): Promise<void>;
}

/** A day window with a fixed limit (the lookup's allowances). */
export interface DailyAllowance {
  readonly limit: number;
  take(subject: string, n?: number): Promise<DayTake>;
  peek(subject: string): Promise<DayState>;
  reset(subject: string): Promise<boolean>;
}

export interface DayLimiterOptions {
  redis: Redis;
  keyPrefix: string;
  /** Where the date goes in the key; fixed by what each service's counters already use. */
  keyOrder?: 'day:subject' | 'subject:day';
  now?: () => number;
}

type TakeRedis = Redis & {
  dvDayTake?: (key: string, n: number, limit: number, ttlMs: number) => Promise<[number, number]>;
  dvDayGive?: (key: string, n: number) => Promise<number>;
};

export class DayLimiter {
  private readonly redis: TakeRedis;
  private readonly keyPrefix: string;
  private readonly dayFirst: boolean;
  readonly now: () => number;
  // The date of the current day, formatted once per day rather than on every call.
  private day = { label: '', from: 0, until: 0 };

  constructor(opts: DayLimiterOptions) {
    this.redis = opts.redis as TakeRedis;
    if (!this.redis.dvDayTake) this.redis.defineCommand('dvDayTake', { numberOfKeys: 1, lua: TAKE });
    if (!this.redis.dvDayGive) this.redis.defineCommand('dvDayGive', { numberOfKeys: 1, lua: GIVE });
    this.keyPrefix = opts.keyPrefix;
    this.dayFirst = (opts.keyOrder ?? 'day:subject') === 'day:subject';
    this.now = opts.now ?? Date.now;
  }

  /** The Redis key of `subject`'s count for the day of `nowMs`. */
  key(subject: string, nowMs = this.now()): string {
    if (nowMs < this.day.from || nowMs >= this.day.until) {
      const from = Math.floor(nowMs / DAY_MS) * DAY_MS;
      this.day = { label: utcDay(from), from, until: from + DAY_MS };
    }
    const label = this.day.label;
    return this.dayFirst ? `${this.keyPrefix}:${label}:${subject}` : `${this.keyPrefix}:${subject}:${label}`;
  }

  /** How long a key created at `nowMs` lives: to the end of its day, and a minute more. */
  ttlMs(nowMs = this.now()): number {
    return Math.ceil(nextUtcMidnightMs(nowMs) - nowMs) + KEY_GRACE_MS;
  }

  /** Whole seconds (at least 1) until the count resets at 00:00 UTC: what Retry-After says. */
  secondsToReset(nowMs = this.now()): number {
    return Math.max(1, Math.ceil((nextUtcMidnightMs(nowMs) - nowMs) / 1000));
  }

  /** Adds `n` to today's count if it stays within `limit`; a refused take counts nothing. */
  async take(subject: string, limit: number, n = 1): Promise<DayTake> {
    const nowMs = this.now();
    const key = this.key(subject, nowMs);
    const [taken, count] = await this.redis.dvDayTake!(key, n, limit, this.ttlMs(nowMs));
    const allowed = taken === 1;
    let refunded = !allowed;
    return {
      ...this.state(limit, count, nowMs),
      allowed,
      refund: async () => {
        if (refunded) return;
        refunded = true;
        await this.redis.dvDayGive!(key, n);
      },
    };
  }

  /** The state without counting anything (`allowed`: one more would be). */
  async peek(subject: string, limit: number): Promise<DayState> {
    const nowMs = this.now();
    return this.state(limit, await this.used(subject, nowMs), nowMs);
  }

  /** Today's count of `subject`. */
  async used(subject: string, nowMs = this.now()): Promise<number> {
    return Math.max(0, Number((await this.redis.get(this.key(subject, nowMs))) ?? 0));
  }

  /** Forgets today's count of `subject` (the admin CLI's quota reset); true when there was one. */
  async reset(subject: string): Promise<boolean> {
    return (await this.redis.del(this.key(subject))) > 0;
  }

  /** This window with one limit for every subject. */
  withLimit(limit: number): DailyAllowance {
    return {
      limit,
      take: (subject, n = 1) => this.take(subject, limit, n),
      peek: (subject) => this.peek(subject, limit),
      reset: (subject) => this.reset(subject),
    };
  }

  private state(limit: number, count: number, nowMs: number): DayState {
    return { allowed: count < limit, limit, count, used: Math.min(count, limit), remaining: Math.max(0, limit - count), resetAtMs: nextUtcMidnightMs(nowMs) };
  }
}
