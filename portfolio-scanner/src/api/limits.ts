import type { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { PortfolioPlan } from '@dv/contracts';
import { PortfolioError } from './errors.ts';

// The spec's limits, counted in Redis so they hold across replicas (rate-limiter-flexible, as the
// gateway counts its own): requests per minute per API key, calls per UTC day per account. Every
// authenticated response carries the five headers, errors included; a refused call does not eat
// the daily quota.

export interface LimitState {
  headers: Record<string, string>;
}

const DAY_S = 86_400;

export class ApiLimits {
  private readonly perMinute = new Map<number, RateLimiterRedis>();
  private readonly perDay = new Map<number, RateLimiterRedis>();
  private readonly redis: Redis;
  private readonly prefix: string;
  private readonly now: () => number;

  constructor(redis: Redis, prefix: string, now: () => number = Date.now) {
    this.redis = redis;
    this.prefix = prefix;
    this.now = now;
  }

  private limiter(cache: Map<number, RateLimiterRedis>, name: string, points: number, duration: number): RateLimiterRedis {
    let l = cache.get(points);
    if (!l) {
      l = new RateLimiterRedis({ storeClient: this.redis, keyPrefix: `${this.prefix}papi:${name}`, points, duration, useRedisPackage: false });
      cache.set(points, l);
    }
    return l;
  }

  private dayKey(accountId: string): string {
    return `${accountId}:${new Date(this.now()).toISOString().slice(0, 10)}`;
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
    const minute = this.limiter(this.perMinute, 'rpm', plan.requestsPerMinute, 60);
    const day = this.limiter(this.perDay, 'day', plan.callsPerDay, 2 * DAY_S);
    const dayKey = this.dayKey(accountId);
    const headers = (m: RateLimiterRes, used: number) => ({
      'X-RateLimit-Limit': String(plan.requestsPerMinute),
      'X-RateLimit-Remaining': String(Math.max(0, m.remainingPoints)),
      'X-RateLimit-Reset': String(Math.ceil((this.now() + m.msBeforeNext) / 1000)),
      'X-API-Quota-Limit': String(plan.callsPerDay),
      'X-API-Quota-Used': String(Math.min(used, plan.callsPerDay)),
    });
    let m: RateLimiterRes;
    try {
      m = await minute.consume(keyId, 1);
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw err;
      const used = (await day.get(dayKey))?.consumedPoints ?? 0;
      const s = Math.max(1, Math.ceil(err.msBeforeNext / 1000));
      throw new PortfolioError('rate_limit_exceeded', `Rate limit of ${plan.requestsPerMinute} requests per minute for this API key exceeded; retry in ${s} s.`, { ...headers(err, used), 'Retry-After': String(s) });
    }
    try {
      const d = await day.consume(dayKey, 1);
      return { headers: headers(m, d.consumedPoints) };
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw err;
      await day.reward(dayKey, 1).catch(() => undefined);
      const s = this.secondsToUtcMidnight();
      throw new PortfolioError(
        'rate_limit_exceeded',
        `Daily quota of ${plan.callsPerDay} calls for this account used up (the per-minute limit is ${plan.requestsPerMinute} requests); retry in ${s} s, at 00:00 UTC.`,
        { ...headers(m, plan.callsPerDay), 'Retry-After': String(s) },
      );
    }
  }
}
