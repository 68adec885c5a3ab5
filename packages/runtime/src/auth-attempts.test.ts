import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stackEnv } from '@dv/test-kit';
import { AuthAttemptLimiter, NegativeCache, TooManyAuthAttempts } from './auth-attempts.ts';
import { createLogger } from './logger.ts';
import { connectRedis, type RedisDependency } from './redis.ts';

let redis: RedisDependency;
const prefix = `t_attempts_${randomBytes(3).toString('hex')}:`;
beforeAll(async () => {
  redis = await connectRedis(stackEnv().REDIS_URL!, createLogger('test', 'silent'));
});
afterAll(async () => {
  const keys = await redis.redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.redis.del(...keys);
  await redis.close();
});

describe('AuthAttemptLimiter (real Redis)', () => {
  it('lets an address through up to its points, then refuses it with the wait', async () => {
    const l = new AuthAttemptLimiter({ redis: redis.redis, keyPrefix: `${prefix}a`, pointsPerMinute: 5, failurePoints: 1 });
    for (let i = 0; i < 5; i++) await l.attempt('198.51.100.1');
    const err = await l.attempt('198.51.100.1').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TooManyAuthAttempts);
    expect((err as TooManyAuthAttempts).retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect((err as TooManyAuthAttempts).retryAfterSeconds).toBeLessThanOrEqual(60);
    // Another address has its own allowance.
    await expect(l.attempt('198.51.100.2')).resolves.toBeUndefined();
  });

  it('charges failures more than successes', async () => {
    const l = new AuthAttemptLimiter({ redis: redis.redis, keyPrefix: `${prefix}b`, pointsPerMinute: 10, failurePoints: 4 });
    // 2 failed attempts cost 8 of 10 points: two successes fit, a third does not.
    for (let i = 0; i < 2; i++) {
      await l.attempt('203.0.113.9');
      await l.failed('203.0.113.9');
    }
    await l.attempt('203.0.113.9');
    await l.attempt('203.0.113.9');
    await expect(l.attempt('203.0.113.9')).rejects.toBeInstanceOf(TooManyAuthAttempts);
  });

  it('is shared across instances (replicas) through Redis', async () => {
    const one = new AuthAttemptLimiter({ redis: redis.redis, keyPrefix: `${prefix}c`, pointsPerMinute: 3, failurePoints: 1 });
    const two = new AuthAttemptLimiter({ redis: redis.redis, keyPrefix: `${prefix}c`, pointsPerMinute: 3, failurePoints: 1 });
    await one.attempt('192.0.2.7');
    await two.attempt('192.0.2.7');
    await one.attempt('192.0.2.7');
    await expect(two.attempt('192.0.2.7')).rejects.toBeInstanceOf(TooManyAuthAttempts);
  });

  it('0 points per minute turns it off', async () => {
    const l = new AuthAttemptLimiter({ redis: redis.redis, keyPrefix: `${prefix}d`, pointsPerMinute: 0, failurePoints: 100 });
    expect(l.enabled).toBe(false);
    for (let i = 0; i < 50; i++) {
      await l.attempt('192.0.2.8');
      await l.failed('192.0.2.8');
    }
  });
});

describe('NegativeCache', () => {
  it('remembers for ttlMs only', () => {
    let now = 1_000;
    const c = new NegativeCache({ ttlMs: 100, maxEntries: 10, now: () => now });
    c.add('k', c.mark);
    expect(c.has('k')).toBe(true);
    now += 99;
    expect(c.has('k')).toBe(true);
    now += 1;
    expect(c.has('k')).toBe(false);
    expect(c.size).toBe(0);
  });

  it('does not remember a lookup that raced with a store change', () => {
    const c = new NegativeCache({ ttlMs: 1_000, maxEntries: 10 });
    const mark = c.mark;
    c.delete('created-meanwhile');
    c.add('k', mark);
    expect(c.has('k')).toBe(false);
    c.add('k', c.mark);
    expect(c.has('k')).toBe(true);
    c.clear();
    expect(c.has('k')).toBe(false);
  });

  it('stays within maxEntries, dropping the oldest', () => {
    const c = new NegativeCache({ ttlMs: 60_000, maxEntries: 3 });
    for (const k of ['a', 'b', 'c', 'd']) c.add(k, c.mark);
    expect(c.size).toBe(3);
    expect(c.has('a')).toBe(false);
    expect(c.has('d')).toBe(true);
  });

  it('ttlMs 0 remembers nothing', () => {
    const c = new NegativeCache({ ttlMs: 0, maxEntries: 3 });
    c.add('a', c.mark);
    expect(c.has('a')).toBe(false);
  });
});
