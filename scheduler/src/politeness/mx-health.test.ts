// The MX health store on a real Redis: marks per (host, IP key) with their own expiry on Redis's
// clock, an old host-wide mark (a string key of the version before) neither breaks a mark nor
// reads as one, and this replica's own marks hold while Redis refuses them.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stackEnv } from '@dv/test-kit';
import { MxHealth, MxHealthStore } from './mx-health.ts';

let redis: Redis;
const prefix = `t:mxh:${randomBytes(3).toString('hex')}:`;

beforeAll(() => {
  redis = new Redis(stackEnv().REDIS_URL!);
});
afterAll(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
});

describe('MxHealthStore', () => {
  it('keeps one expiry per IP key, never shortens one, and drops ended marks', async () => {
    const store = new MxHealthStore({ redis, prefix });
    await store.mark('mx.a.test', '10.0.0.1', 60_000);
    await store.mark('mx.a.test', '10.0.0.2', 900_000);
    await store.mark('mx.a.test', '10.0.0.1', 1_000);
    await store.mark('mx.a.test', '10.0.0.3', 1);
    await new Promise((r) => setTimeout(r, 20));
    const marks = await store.read('mx.a.test');
    expect([...marks.keys()].sort()).toEqual(['10.0.0.1', '10.0.0.2']);
    expect(marks.get('10.0.0.1')).toBeGreaterThan(50_000);
    expect(marks.get('10.0.0.2')).toBeGreaterThan(800_000);
    // The key lives as long as its longest mark.
    expect(await redis.pttl(`${prefix}mxdown:mx.a.test`)).toBeGreaterThan(800_000);
    expect((await store.read('mx.none.test')).size).toBe(0);
  });

  it('reads an old host-wide mark as none and replaces it on the next mark', async () => {
    const store = new MxHealthStore({ redis, prefix });
    await redis.set(`${prefix}mxdown:mx.old.test`, '1', 'PX', 60_000);
    expect((await store.read('mx.old.test')).size).toBe(0);
    await store.mark('mx.old.test', '10.0.0.1', 60_000);
    expect([...(await store.read('mx.old.test')).keys()]).toEqual(['10.0.0.1']);
  });
});

describe('MxHealth', () => {
  it('holds its own marks at once and while Redis refuses them', async () => {
    const down = { eval: async () => Promise.reject(new Error("Stream isn't writeable")) } as unknown as Redis;
    const health = new MxHealth(new MxHealthStore({ redis: down, prefix }), 1_000);
    expect(await health.mark('mx.b.test', '10.0.0.1', 120_000)).toBe(false);
    const view = await health.view(['mx.b.test', 'mx.c.test']);
    expect(view.get('mx.b.test')!.get('10.0.0.1')).toBeGreaterThan(100_000);
    expect(view.get('mx.c.test')!.size).toBe(0);
  });

  it('merges the shared marks with its own', async () => {
    const store = new MxHealthStore({ redis, prefix });
    await store.mark('mx.d.test', '10.0.0.9', 60_000);
    const health = new MxHealth(store, 1_000);
    expect(await health.mark('mx.d.test', '10.0.0.1', 120_000)).toBe(true);
    const view = await health.view(['mx.d.test']);
    expect([...view.get('mx.d.test')!.keys()].sort()).toEqual(['10.0.0.1', '10.0.0.9']);
  });
});
