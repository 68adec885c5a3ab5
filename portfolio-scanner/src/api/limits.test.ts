import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PORTFOLIO_PLANS } from '@dv/contracts';
import { ApiLimits } from './limits.ts';
import type { PortfolioError } from './errors.ts';
import { startHarness, type Harness } from './testing/harness.ts';

// ApiLimits on the run's Redis: calls made in the same turn of the event loop go as one script
// (several past its cap) and are counted exactly as one at a time would be; a Redis that cannot take commands fails each
// call, alone or batched.

let h: Harness;
beforeAll(async () => {
  h = await startHarness('plimits');
});
afterAll(async () => {
  await h?.close();
});

const plan = PORTFOLIO_PLANS.enterprise;

describe('portfolio API limits', () => {
  it('130 calls at once on a 100/min key: exactly 100 pass, in order, 30 get 429; the day counts the 100', async () => {
    const limits = new ApiLimits(h.redis, `${h.redisPrefix}batch:`);
    const settled = await Promise.allSettled(Array.from({ length: 130 }, () => limits.take('acc_1:1', 'acc_1', plan)));
    const passed = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value.headers] : []));
    const refused = settled.flatMap((s) => (s.status === 'rejected' ? [s.reason as PortfolioError] : []));
    expect(passed).toHaveLength(100);
    expect(refused).toHaveLength(30);
    expect(passed.map((hd) => hd['X-RateLimit-Remaining'])).toEqual(Array.from({ length: 100 }, (_, i) => String(99 - i)));
    expect(passed.map((hd) => hd['X-API-Quota-Used'])).toEqual(Array.from({ length: 100 }, (_, i) => String(i + 1)));
    for (const e of refused) {
      expect(e.code).toBe('rate_limit_exceeded');
      expect(e.headers['X-API-Quota-Used']).toBe('100');
      expect(Number(e.headers['Retry-After'])).toBeGreaterThan(0);
    }
    // A call on its own afterwards is answered the same way.
    await expect(limits.take('acc_1:1', 'acc_1', plan)).rejects.toMatchObject({ code: 'rate_limit_exceeded' });
    expect((await limits.take('acc_1:2', 'acc_1', plan)).headers['X-API-Quota-Used']).toBe('101');
  });

  it('600 calls at once (more than one script holds) are counted in order, each answered with its own count', async () => {
    const limits = new ApiLimits(h.redis, `${h.redisPrefix}many:`);
    const premium = PORTFOLIO_PLANS.enterprise_max_premium;
    const got = await Promise.all(Array.from({ length: 600 }, (_, i) => limits.take(`acc_3:${i % 2}`, 'acc_3', premium)));
    expect(got.map((g) => g.headers['X-API-Quota-Used'])).toEqual(Array.from({ length: 600 }, (_, i) => String(i + 1)));
    // Two keys in turn: each key's minute count goes down by one every other call.
    expect(got.map((g) => g.headers['X-RateLimit-Remaining'])).toEqual(Array.from({ length: 600 }, (_, i) => String(premium.requestsPerMinute - 1 - Math.floor(i / 2))));
  });

  it('a Redis that takes no commands fails every call, alone or batched', async () => {
    const dead = h.redis.duplicate({ lazyConnect: true, enableOfflineQueue: false });
    try {
      const limits = new ApiLimits(dead, `${h.redisPrefix}dead:`);
      await expect(limits.take('acc_2:1', 'acc_2', plan)).rejects.toThrow(/enableOfflineQueue|writeable|closed/i);
      const batch = await Promise.allSettled([1, 2, 3].map((k) => limits.take(`acc_2:${k}`, 'acc_2', plan)));
      expect(batch.map((s) => s.status)).toEqual(['rejected', 'rejected', 'rejected']);
    } finally {
      dead.disconnect();
    }
  });
});
