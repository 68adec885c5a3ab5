import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import { deleteByPrefix, stackEnv } from '@dv/test-kit';
import { DayLimiter, nextUtcMidnightMs } from './day-limiter.ts';
import { createLogger } from './logger.ts';
import { connectRedis, type RedisDependency } from './redis.ts';

// DayLimiter on the test stack's Redis: limits, refunds, the day's rollover (an injected clock),
// atomic concurrent takes, and keys that rate-limiter-flexible, which kept these counters before,
// reads and writes alike.

const DAY_MS = 86_400_000;
const log = createLogger('day-limiter-test', 'silent');
let dep: RedisDependency;
const prefix = `t_day_${randomBytes(4).toString('hex')}:`;

beforeAll(async () => {
  dep = await connectRedis(stackEnv().REDIS_URL as string, log);
});
afterAll(async () => {
  await deleteByPrefix(dep.redis, prefix);
  await dep.close();
});

function clock(startMs: number): { now: () => number; set: (ms: number) => void } {
  let t = startMs;
  return { now: () => t, set: (ms) => (t = ms) };
}

describe('DayLimiter', () => {
  it('allows `limit` points a day, refuses the next without counting it, and says when it resets', async () => {
    const c = clock(Date.UTC(2026, 2, 10, 15, 30));
    const day = new DayLimiter({ redis: dep.redis, keyPrefix: `${prefix}limit`, now: c.now }).withLimit(3);
    for (let i = 1; i <= 3; i++) expect(await day.take('a')).toMatchObject({ allowed: true, used: i, remaining: 3 - i, count: i });
    const refused = await day.take('a');
    expect(refused).toMatchObject({ allowed: false, used: 3, remaining: 0, count: 3, resetAtMs: Date.UTC(2026, 2, 11) });
    expect(await day.peek('a')).toMatchObject({ allowed: false, used: 3, count: 3 });
    // Another subject has its own count.
    expect(await day.take('b')).toMatchObject({ allowed: true, used: 1 });
  });

  it('takes n at once only when all n fit, and a refund gives them back once', async () => {
    const c = clock(Date.UTC(2026, 2, 10, 9));
    const day = new DayLimiter({ redis: dep.redis, keyPrefix: `${prefix}n`, now: c.now });
    const first = await day.take('acc', 10, 7);
    expect(first).toMatchObject({ allowed: true, count: 7 });
    expect(await day.take('acc', 10, 4)).toMatchObject({ allowed: false, count: 7 });
    await first.refund();
    await first.refund();
    expect(await day.used('acc')).toBe(0);
    expect(await day.take('acc', 10, 10)).toMatchObject({ allowed: true, count: 10 });
  });

  it('starts a new count at 00:00 UTC; a key lives to the end of its day and a minute more', async () => {
    const c = clock(Date.UTC(2026, 2, 10, 23, 59, 59, 500));
    const limiter = new DayLimiter({ redis: dep.redis, keyPrefix: `${prefix}roll`, keyOrder: 'subject:day', now: c.now });
    expect(limiter.key('x')).toBe(`${prefix}roll:x:2026-03-10`);
    expect(await limiter.take('x', 1)).toMatchObject({ allowed: true, resetAtMs: Date.UTC(2026, 2, 11) });
    expect(await limiter.take('x', 1)).toMatchObject({ allowed: false });
    expect(limiter.secondsToReset()).toBe(1);
    const ttl = await dep.redis.pttl(`${prefix}roll:x:2026-03-10`);
    expect(ttl).toBeGreaterThan(60_000);
    expect(ttl).toBeLessThanOrEqual(60_500);
    c.set(Date.UTC(2026, 2, 11, 0, 0, 0, 1));
    expect(limiter.key('x')).toBe(`${prefix}roll:x:2026-03-11`);
    expect(await limiter.take('x', 1)).toMatchObject({ allowed: true, count: 1, resetAtMs: Date.UTC(2026, 2, 12) });
    expect(await dep.redis.pttl(`${prefix}roll:x:2026-03-11`)).toBeGreaterThan(DAY_MS - 1000);
    // The admin reset forgets today's count only.
    expect(await limiter.reset('x')).toBe(true);
    expect(await limiter.reset('x')).toBe(false);
    expect(await dep.redis.get(`${prefix}roll:x:2026-03-10`)).toBe('1');
  });

  it('counts concurrent takes atomically: exactly `limit` of them are allowed', async () => {
    const day = new DayLimiter({ redis: dep.redis, keyPrefix: `${prefix}race` }).withLimit(50);
    const takes = await Promise.all(Array.from({ length: 200 }, () => day.take('hot')));
    expect(takes.filter((t) => t.allowed)).toHaveLength(50);
    expect((await day.peek('hot')).count).toBe(50);
    expect(new Set(takes.filter((t) => t.allowed).map((t) => t.count)).size).toBe(50);
  });

  it('shares its counters with rate-limiter-flexible (same keys, same values)', async () => {
    const now = Date.now();
    const day = new DayLimiter({ redis: dep.redis, keyPrefix: `${prefix}rlf`, keyOrder: 'subject:day' });
    const key = day.key('acc', now).slice(`${prefix}rlf:`.length);
    const old = new RateLimiterRedis({ storeClient: dep.redis, keyPrefix: `${prefix}rlf`, points: 100, duration: 172_800, useRedisPackage: false });
    await old.consume(key, 5);
    expect(await day.take('acc', 100, 2)).toMatchObject({ allowed: true, count: 7 });
    expect((await old.get(key))?.consumedPoints).toBe(7);
    expect(nextUtcMidnightMs(now) - now).toBeLessThanOrEqual(DAY_MS);
  });
});
