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

type TakeRedis = Redis & { portfolioTake?: (minuteKey: string, dayKey: string, rpm: number, perDay: number, minuteMs: number, dayMs: number) => Promise<[number, number, number, number]> };

export class ApiLimits {
  private readonly redis: TakeRedis;
  private readonly prefix: string;
  private readonly now: () => number;

  constructor(redis: Redis, prefix: string, now: () => number = Date.now) {
    this.redis = redis as TakeRedis;
    if (!this.redis.portfolioTake) this.redis.defineCommand('portfolioTake', { numberOfKeys: 2, lua: TAKE });
    this.prefix = prefix;
    this.now = now;
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
    const [outcome, minuteUsed, minuteMs, dayUsed] = await this.redis.portfolioTake!(`${this.prefix}papi:rpm:${keyId}`, `${this.prefix}papi:day:${this.dayKey(accountId)}`, plan.requestsPerMinute, plan.callsPerDay, 60_000, 2 * DAY_S * 1000);
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
}
