import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokePortfolioKey, setPortfolioPlan, touchPortfolioKey } from '@dv/accounts';
import { createLogger } from '@dv/runtime';
import { until } from '../../../test/helpers.ts';
import { PortfolioKeyCache } from './key-cache.ts';
import { startHarness, type Harness } from './testing/harness.ts';

// The in-process key cache on the run's MongoDB: remembered keys answer without a read; revoking
// the key or changing its account drops it through the change stream, so the next call reads again
// and fails; a last_used_at touch drops nothing. Calls that miss at once share one read; a key in
// use near the end of its entry is read again in the background.

let h: Harness;
let cache: PortfolioKeyCache;

beforeAll(async () => {
  h = await startHarness('pkeycache');
  cache = new PortfolioKeyCache(h.db, createLogger('key-cache-test', 'silent'), 60_000);
  await cache.start();
});
afterAll(async () => {
  await cache?.stop();
  await h?.close();
});

describe('portfolio key cache', () => {
  it('answers a known key from memory; a revoked key fails on the next call', async () => {
    const a = await h.account('enterprise');
    const first = await cache.lookup(a.key);
    expect(first.ok).toBe(true);
    const misses = cache.misses;
    expect((await cache.lookup(a.key)).ok).toBe(true);
    expect(cache.misses).toBe(misses);
    expect(cache.hits).toBeGreaterThan(0);
    // A last_used_at write changes nothing authentication depends on: still remembered.
    await touchPortfolioKey(h.db, (first as { key: { _id: string } }).key._id, new Date());
    await revokePortfolioKey(h.db, a.accountId, 1);
    await until(async () => ((await cache.lookup(a.key)).ok ? null : true), 10_000, 'revoked key refused');
    expect(await cache.lookup(a.key)).toEqual({ ok: false, reason: 'revoked' });
  });

  it('a change of the account (its plan) drops its keys; the next call reads the new plan', async () => {
    const b = await h.account('enterprise');
    expect((await cache.lookup(b.key)).ok).toBe(true);
    await setPortfolioPlan(h.db, b.accountId, 'business');
    await until(async () => {
      const r = await cache.lookup(b.key);
      return r.ok && r.account.portfolio_plan === 'business' ? true : null;
    }, 10_000, 'plan change seen');
  });

  it('a key revoked through another replica (the harness API) is dropped from this one', async () => {
    const c = await h.account('enterprise');
    expect((await cache.lookup(c.key)).ok).toBe(true);
    const revoked = await h.call('DELETE', '/api/v1/keys/1/', { key: c.key });
    expect(revoked.status).toBe(200);
    await until(async () => ((await cache.lookup(c.key)).ok ? null : true), 10_000, 'revoked through the API');
  });

  it('calls that miss at once share one read', async () => {
    const d = await h.account('enterprise');
    const reads = cache.reads;
    const all = await Promise.all(Array.from({ length: 20 }, () => cache.lookup(d.key)));
    expect(all.every((r) => r.ok)).toBe(true);
    expect(cache.reads).toBe(reads + 1);
  });

  it('a key used near the end of its entry is read again in the background, so it never waits once remembered', async () => {
    // The account first: its writes' change events then reach no stream of this cache.
    const e = await h.account('enterprise');
    const short = new PortfolioKeyCache(h.db, createLogger('key-cache-test', 'silent'), 1_200);
    await short.start();
    try {
      const t0 = Date.now();
      expect((await short.lookup(e.key, new Date(t0))).ok).toBe(true);
      expect(short.reads).toBe(1);
      // Within the last sixth of the entry (200 ms): answered from memory and read again meanwhile.
      expect((await short.lookup(e.key, new Date(t0 + 1_100))).ok).toBe(true);
      expect(short.misses).toBe(1);
      await until(async () => (short.reads === 2 && !(short as unknown as { reading: Map<string, unknown> }).reading.size ? true : null), 10_000, 'background read');
      // Past the first entry's end: the refreshed one answers.
      expect((await short.lookup(e.key, new Date(t0 + 1_500))).ok).toBe(true);
      expect(short.misses).toBe(1);
    } finally {
      await short.stop();
    }
  });
});
