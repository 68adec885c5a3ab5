import type { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { PlanLimits } from '@dv/contracts';
import { ApiError, DayLimiter } from '@dv/runtime';

// The spec's limits, counted in Redis so they hold across gateway replicas:
// - requests per minute per account (all keys together): a rate-limiter-flexible counter;
// - live emails per UTC day: a DayLimiter counter (@dv/runtime);
// - concurrent list jobs and single checks in flight: a sorted set of running job ids per account
//   (score = start time), taken atomically by a Lua script. The scheduler finishes jobs without
//   telling Redis, so when a set looks full it is rebuilt from MongoDB (the truth) and tried again:
//   the common path costs one Redis call, only a full set costs a MongoDB read;
// - concurrent list downloads (MCP verify_list_from_url): the same kind of set, with no MongoDB
//   truth behind it, so its entries simply lapse after the longest download.

const ACQUIRE = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1`;

export type SlotKind = 'single' | 'list';

export interface LimitsOptions {
  redis: Redis;
  prefix: string;
  slotMaxAgeSeconds: number;
  /** Running job ids of that kind for an account, from MongoDB. */
  runningJobs: (accountId: string, kind: SlotKind) => Promise<string[]>;
  now?: () => number;
}

export class Limits {
  private readonly opts: LimitsOptions;
  private readonly perMinute = new Map<number, RateLimiterRedis>();
  private readonly perDay: DayLimiter;
  private readonly now: () => number;

  constructor(opts: LimitsOptions) {
    this.opts = opts;
    this.now = opts.now ?? Date.now;
    this.perDay = new DayLimiter({ redis: opts.redis, keyPrefix: `${opts.prefix}day`, keyOrder: 'subject:day', now: this.now });
    opts.redis.defineCommand('dvAcquireSlot', { numberOfKeys: 1, lua: ACQUIRE });
  }

  private limiter(cache: Map<number, RateLimiterRedis>, name: string, points: number, duration: number): RateLimiterRedis {
    let l = cache.get(points);
    if (!l) {
      l = new RateLimiterRedis({ storeClient: this.opts.redis, keyPrefix: `${this.opts.prefix}${name}`, points, duration, useRedisPackage: false });
      cache.set(points, l);
    }
    return l;
  }

  private perMinuteLimiter(limits: PlanLimits): RateLimiterRedis {
    return this.limiter(this.perMinute, 'rpm', Math.max(1, limits.requestsPerMinute), 60);
  }

  private static rateLimited(err: RateLimiterRes, detail: (seconds: number) => string): ApiError {
    const seconds = Math.max(1, Math.ceil(err.msBeforeNext / 1000));
    return new ApiError('rate_limited', detail(seconds), {}, { 'Retry-After': String(seconds) });
  }

  /** One request against the account's per-minute allowance; 429 rate_limited when used up. */
  async request(accountId: string, limits: PlanLimits): Promise<void> {
    try {
      await this.perMinuteLimiter(limits).consume(accountId, 1);
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw err;
      throw Limits.rateLimited(err, (s) => `More than ${limits.requestsPerMinute} requests in a minute for this account; retry in ${s} s.`);
    }
  }

  /**
   * The calls of one MCP HTTP request (a JSON-RPC batch carries up to 100) each count as a
   * request; `request` already counted the first. A refused batch runs none of its calls and gets
   * its further calls back, so it costs what any refused request costs.
   */
  async batchCalls(accountId: string, limits: PlanLimits, calls: number): Promise<void> {
    const more = calls - 1;
    if (more <= 0) return;
    const limiter = this.perMinuteLimiter(limits);
    try {
      await limiter.consume(accountId, more);
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw err;
      await limiter.reward(accountId, more).catch(() => undefined);
      throw Limits.rateLimited(err, (s) =>
        calls > limits.requestsPerMinute
          ? `This request carries ${calls} calls and the account allows ${limits.requestsPerMinute} a minute; send fewer calls per request.`
          : `This request carries ${calls} calls, more than are left of the account's ${limits.requestsPerMinute} requests a minute; retry in ${s} s.`,
      );
    }
  }

  /** Takes `n` live emails from today's cap; returns how to give them back if the job is not created. */
  async takeDaily(accountId: string, limits: PlanLimits, n: number): Promise<() => Promise<void>> {
    if (n <= 0) return async () => undefined;
    // A refused take does not eat the allowance.
    const take = await this.perDay.take(accountId, Math.max(1, limits.emailsPerDay), n);
    if (!take.allowed) {
      throw new ApiError('daily_cap_reached', `This would exceed the account's ${limits.emailsPerDay} live emails per day (${take.count} used today); the cap resets at 00:00 UTC.`, {}, { 'Retry-After': String(this.perDay.secondsToReset()) });
    }
    return async () => {
      await take.refund().catch(() => undefined);
    };
  }

  async usedToday(accountId: string): Promise<number> {
    return this.perDay.used(accountId);
  }

  private slotKey(accountId: string, kind: SlotKind): string {
    return `${this.opts.prefix}slots:${kind}:${accountId}`;
  }

  /** `score`: when the entry counts as taken (pruned `maxAgeMs` later, kept by rebuilds while recent). */
  private async tryAcquire(key: string, limit: number, member: string, score: number, maxAgeMs = this.opts.slotMaxAgeSeconds * 1000): Promise<boolean> {
    const now = this.now();
    const ok = await (this.opts.redis as unknown as { dvAcquireSlot: (...a: (string | number)[]) => Promise<number> }).dvAcquireSlot(key, now - maxAgeMs, limit, score, member, maxAgeMs);
    return ok === 1;
  }

  /**
   * Takes a running-job slot (list: concurrent jobs; single: checks in flight) or throws 429.
   * `pendingMs`: the job will be in MongoDB only that much later (a list still to download), so a
   * rebuild must not drop its slot before then.
   */
  async acquireSlot(accountId: string, limits: PlanLimits, kind: SlotKind, jobId: string, opts: { pendingMs?: number } = {}): Promise<void> {
    const limit = kind === 'list' ? limits.concurrentJobs : limits.singleChecksInFlight;
    const key = this.slotKey(accountId, kind);
    const score = this.now() + (opts.pendingMs ?? 0);
    if (await this.tryAcquire(key, limit, jobId, score)) return;
    // Full: rebuild from MongoDB (jobs finished by the scheduler leave the set only here).
    const running = await this.opts.runningJobs(accountId, kind);
    // Slots taken in the last few seconds may belong to jobs not inserted yet: they stay. Rebuilt
    // entries get an old score, so the next rebuild drops them unless MongoDB still lists them.
    const recent = this.now() - 10_000;
    const tx = this.opts.redis.multi().zremrangebyscore(key, '-inf', recent);
    if (running.length > 0) tx.zadd(key, ...running.flatMap((id) => [recent - 1, id]));
    await tx.exec();
    if (await this.tryAcquire(key, limit, jobId, score)) return;
    if (kind === 'list') {
      throw new ApiError('too_many_active_jobs', `The account already has ${limit} running jobs, the most its plan allows at once; wait for one to finish or cancel one.`, {}, { 'Retry-After': '30' });
    }
    throw new ApiError('too_many_in_flight', `The account already has ${limit} single checks in flight; wait for some to finish.`, {}, { 'Retry-After': '5' });
  }

  async releaseSlot(accountId: string, kind: SlotKind, jobId: string): Promise<void> {
    await this.opts.redis.zrem(this.slotKey(accountId, kind), jobId).catch(() => undefined);
  }

  /**
   * One of at most `limit` list downloads at once for the account, or 429 too_many_active_jobs
   * (a download is a list job in the making). An entry older than `maxAgeMs` (longer than any
   * download may run) belonged to a replica that died and no longer counts.
   */
  async acquireFetch(accountId: string, fetchId: string, limit: number, maxAgeMs: number): Promise<void> {
    if (await this.tryAcquire(this.fetchKey(accountId), limit, fetchId, this.now(), maxAgeMs)) return;
    throw new ApiError('too_many_active_jobs', `The account already has ${limit} list downloads running, the most allowed at once; wait for one to finish.`, {}, { 'Retry-After': '5' });
  }

  async releaseFetch(accountId: string, fetchId: string): Promise<void> {
    await this.opts.redis.zrem(this.fetchKey(accountId), fetchId).catch(() => undefined);
  }

  private fetchKey(accountId: string): string {
    return `${this.opts.prefix}fetches:${accountId}`;
  }
}
