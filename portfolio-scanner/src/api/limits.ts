import type { Redis } from 'ioredis';
import type { PortfolioPlan } from '@dv/contracts';
import { DAY_TAKE_LUA, DayLimiter } from '@dv/runtime';
import { PortfolioError } from './errors.ts';

// The spec's limits, counted in Redis so they hold across replicas: requests per minute per API
// key, calls per UTC day per account. Every
// authenticated response carries the five headers, errors included; a refused call does not eat
// the daily quota.

export interface LimitState {
  headers: Record<string, string>;
}

// Both limits in one script: the per-minute count of the key first; only when it is within the
// limit is the account's day counted (day_take, the DayLimiter's own step, so a day over its quota
// is given its call back). The minute window is fixed from the first call, as rate-limiter-flexible
// keeps it (same keys and values, so its tools read them). Two sequential calls were a third of an
// authenticated call.
//
// One script runs the calls of a whole batch (below), in order: KEYS are each call's minute and day
// keys in turn, ARGV the two windows and then each call's two limits; the reply is four integers
// per call (outcome, minute count, minute window left in ms, day count). One command per batch
// rather than one per call: the client builds, writes and decodes one, and Redis runs one script.
// (All keys of a batch in one script: fine on one Redis or Sentinel, not on Redis Cluster.)
const TAKE = `${DAY_TAKE_LUA}
local minuteMs, dayMs = tonumber(ARGV[1]), tonumber(ARGV[2])
local out = {}
for i = 1, #KEYS / 2 do
  local mk, dk = KEYS[2 * i - 1], KEYS[2 * i]
  local rpm, perDay = tonumber(ARGV[2 * i + 1]), tonumber(ARGV[2 * i + 2])
  local m = redis.call('INCR', mk)
  local mttl = redis.call('PTTL', mk)
  if mttl < 0 then redis.call('PEXPIRE', mk, minuteMs); mttl = minuteMs end
  local o = #out
  if m > rpm then
    out[o + 1], out[o + 2], out[o + 3], out[o + 4] = 0, m, mttl, tonumber(redis.call('GET', dk) or '0')
  else
    local taken, d = day_take(dk, 1, perDay, dayMs)
    out[o + 1], out[o + 2], out[o + 3], out[o + 4] = taken == 1 and 2 or 1, m, mttl, d
  end
end
return out
`;

const MINUTE_MS = 60_000;

interface Call {
  minuteKey: string;
  dayKey: string;
  rpm: number;
  perDay: number;
  resolve: (r: TakeReply) => void;
  reject: (err: unknown) => void;
}
type TakeReply = [outcome: number, minuteUsed: number, minuteMs: number, dayUsed: number];
type TakeRedis = Redis & { portfolioTakeBatch?: (numKeys: number, ...keysAndArgs: (string | number)[]) => Promise<number[]> };

// Batches: the calls of one turn of the event loop together, and at most BATCHES_IN_FLIGHT
// batches at Redis at a time; calls that arrive meanwhile wait for one to come back and go in the
// next (a group commit). A lone call on a quiet process goes at once; under load a batch carries
// as many calls as arrived during a Redis round trip (about a dozen at 32 connections), each still
// waiting for its own answer. At most BATCH_MAX_CALLS calls per script, so Redis, which runs a
// script to its end before anything else, is never held long.
const BATCHES_IN_FLIGHT = 2;
const BATCH_MAX_CALLS = 256;

export class ApiLimits {
  private readonly redis: TakeRedis;
  private readonly prefix: string;
  private readonly now: () => number;
  // The calls per day of each account: its keys, their time to live and the reset time.
  private readonly days: DayLimiter;
  private waiting: Call[] = [];
  private inFlight = 0;
  private scheduled = false;

  constructor(redis: Redis, prefix: string, now: () => number = Date.now) {
    this.redis = redis as TakeRedis;
    if (!this.redis.portfolioTakeBatch) this.redis.defineCommand('portfolioTakeBatch', { lua: TAKE });
    this.prefix = prefix;
    this.now = now;
    this.days = new DayLimiter({ redis, keyPrefix: `${prefix}papi:day`, keyOrder: 'subject:day', now });
  }

  /**
   * Counts one call for the key and its account. Returns the headers to send; throws 429
   * rate_limit_exceeded (with the headers and Retry-After) when either limit is used up.
   */
  async take(keyId: string, accountId: string, plan: PortfolioPlan): Promise<LimitState> {
    const [outcome, minuteUsed, minuteMs, dayUsed] = await this.run(`${this.prefix}papi:rpm:${keyId}`, this.days.key(accountId), plan.requestsPerMinute, plan.callsPerDay);
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
      const s = this.days.secondsToReset();
      throw new PortfolioError(
        'rate_limit_exceeded',
        `Daily quota of ${plan.callsPerDay} calls for this account used up (the per-minute limit is ${plan.requestsPerMinute} requests); retry in ${s} s, at 00:00 UTC.`,
        { ...headers, 'Retry-After': String(s) },
      );
    }
    return { headers };
  }

  /** One call's counts, from the script run for its batch. */
  private run(minuteKey: string, dayKey: string, rpm: number, perDay: number): Promise<TakeReply> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ minuteKey, dayKey, rpm, perDay, resolve, reject });
      this.schedule();
    });
  }

  /** A flush at the end of this turn, unless one is due or the batches in flight are at the cap. */
  private schedule(): void {
    if (this.scheduled || this.waiting.length === 0 || this.inFlight >= BATCHES_IN_FLIGHT) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    const batch = this.waiting.splice(0, BATCH_MAX_CALLS);
    if (batch.length === 0) return;
    this.inFlight++;
    const keys: string[] = [];
    const argv: number[] = [MINUTE_MS, this.days.ttlMs()];
    for (const c of batch) {
      keys.push(c.minuteKey, c.dayKey);
      argv.push(c.rpm, c.perDay);
    }
    this.redis.portfolioTakeBatch!(keys.length, ...keys, ...argv)
      .then(
        (reply) => {
          batch.forEach((c, i) => {
            if (reply.length < 4 * (i + 1)) c.reject(new Error('Redis answered fewer limit counts than calls sent'));
            else c.resolve([reply[4 * i]!, reply[4 * i + 1]!, reply[4 * i + 2]!, reply[4 * i + 3]!]);
          });
        },
        (err: unknown) => {
          for (const c of batch) c.reject(err);
        },
      )
      .finally(() => {
        this.inFlight--;
        this.schedule();
      });
    // More than one script's worth waiting: the rest goes at once, up to the cap.
    if (this.waiting.length > 0) this.schedule();
  }
}
