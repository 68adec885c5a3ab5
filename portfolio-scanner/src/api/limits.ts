import type { Redis } from 'ioredis';
import type { PortfolioPlan } from '@dv/contracts';
import { PortfolioError } from './errors.ts';

// The spec's limits, counted in Redis so they hold across replicas: requests per minute per API
// key, calls per UTC day per account. Every
// authenticated response carries the five headers, errors included; a refused call does not eat
// the daily quota.

export interface LimitState {
  headers: Record<string, string>;
}

const DAY_S = 86_400;

// Both limits in one Redis round trip (one script): the per-minute count of the key first; only
// when it is within the limit is the account's day counted, and a day over its quota is given its
// call back. Fixed windows from the first call, as rate-limiter-flexible keeps them (same keys and
// values, so its tools read them). Two sequential calls were a third of an authenticated call.
const TAKE = `
local m = redis.call('INCR', KEYS[1])
local mttl = redis.call('PTTL', KEYS[1])
if mttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[3]); mttl = tonumber(ARGV[3]) end
if m > tonumber(ARGV[1]) then
  return {0, m, mttl, tonumber(redis.call('GET', KEYS[2]) or '0')}
end
local d = redis.call('INCR', KEYS[2])
if redis.call('PTTL', KEYS[2]) < 0 then redis.call('PEXPIRE', KEYS[2], ARGV[4]) end
if d > tonumber(ARGV[2]) then
  redis.call('DECR', KEYS[2])
  return {1, m, mttl, d - 1}
end
return {2, m, mttl, d}
`;

type TakeArgs = [minuteKey: string, dayKey: string, rpm: number, perDay: number, minuteMs: number, dayMs: number];
type TakeReply = [outcome: number, minuteUsed: number, minuteMs: number, dayUsed: number];
type TakeRedis = Redis & { portfolioTake?: (...args: TakeArgs) => Promise<TakeReply> };
type TakePipeline = { portfolioTake: (...args: TakeArgs) => unknown; exec: () => Promise<[Error | null, unknown][] | null> };

// Calls that arrive in the same turn of the event loop (many connections at once) go to Redis as
// one pipeline: one write and one read for all of them instead of one each, the same scripts run
// in the same order, each call still waits for its own answer. A lone call goes as it is. At 32
// connections this was about a sixth of an authenticated call's CPU.

export class ApiLimits {
  private readonly redis: TakeRedis;
  private readonly prefix: string;
  private readonly now: () => number;
  private waiting: { args: TakeArgs; resolve: (r: TakeReply) => void; reject: (err: unknown) => void }[] = [];

  constructor(redis: Redis, prefix: string, now: () => number = Date.now) {
    this.redis = redis as TakeRedis;
    if (!this.redis.portfolioTake) this.redis.defineCommand('portfolioTake', { numberOfKeys: 2, lua: TAKE });
    this.prefix = prefix;
    this.now = now;
  }

  // The UTC date of the day counter, formatted once per day rather than on every call.
  private day = { label: '', from: 0, until: 0 };

  private dayKey(accountId: string): string {
    const now = this.now();
    if (now < this.day.from || now >= this.day.until) {
      const from = Math.floor(now / (DAY_S * 1000)) * DAY_S * 1000;
      this.day = { label: new Date(from).toISOString().slice(0, 10), from, until: from + DAY_S * 1000 };
    }
    return `${accountId}:${this.day.label}`;
  }

  private secondsToUtcMidnight(): number {
    const now = this.now();
    const next = new Date(now);
    next.setUTCHours(24, 0, 0, 0);
    return Math.max(1, Math.ceil((next.getTime() - now) / 1000));
  }

  /**
   * Counts one call for the key and its account. Returns the headers to send; throws 429
   * rate_limit_exceeded (with the headers and Retry-After) when either limit is used up.
   */
  async take(keyId: string, accountId: string, plan: PortfolioPlan): Promise<LimitState> {
    const [outcome, minuteUsed, minuteMs, dayUsed] = await this.run([`${this.prefix}papi:rpm:${keyId}`, `${this.prefix}papi:day:${this.dayKey(accountId)}`, plan.requestsPerMinute, plan.callsPerDay, 60_000, 2 * DAY_S * 1000]);
    const headers = {
      'X-RateLimit-Limit': String(plan.requestsPerMinute),
      'X-RateLimit-Remaining': String(Math.max(0, plan.requestsPerMinute - minuteUsed)),
      'X-RateLimit-Reset': String(Math.ceil((this.now() + minuteMs) / 1000)),
      'X-API-Quota-Limit': String(plan.callsPerDay),
      'X-API-Quota-Used': String(Math.min(outcome === 1 ? plan.callsPerDay : dayUsed, plan.callsPerDay)),
    };
    if (outcome === 0) {
      const s = Math.max(1, Math.ceil(minuteMs / 1000));
      throw new PortfolioError('rate_limit_exceeded', `Rate limit of ${plan.requestsPerMinute} requests per minute for this API key exceeded; retry in ${s} s.`, { ...headers, 'Retry-After': String(s) });
    }
    if (outcome === 1) {
      const s = this.secondsToUtcMidnight();
      throw new PortfolioError(
        'rate_limit_exceeded',
        `Daily quota of ${plan.callsPerDay} calls for this account used up (the per-minute limit is ${plan.requestsPerMinute} requests); retry in ${s} s, at 00:00 UTC.`,
        { ...headers, 'Retry-After': String(s) },
      );
    }
    return { headers };
  }

  /** The script for one call, sent with the others of this turn of the event loop. */
  private run(args: TakeArgs): Promise<TakeReply> {
    return new Promise((resolve, reject) => {
      if (this.waiting.push({ args, resolve, reject }) === 1) setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    const batch = this.waiting;
    this.waiting = [];
    if (batch.length === 1) {
      const one = batch[0]!;
      this.redis.portfolioTake!(...one.args).then(one.resolve, one.reject);
      return;
    }
    const pipeline = this.redis.pipeline() as unknown as TakePipeline;
    for (const b of batch) pipeline.portfolioTake(...b.args);
    pipeline.exec().then(
      (results) => {
        batch.forEach((b, i) => {
          const [err, reply] = results?.[i] ?? [new Error('Redis pipeline discarded'), null];
          if (err) b.reject(err);
          else b.resolve(reply as TakeReply);
        });
      },
      (err: unknown) => {
        for (const b of batch) b.reject(err);
      },
    );
  }
}
