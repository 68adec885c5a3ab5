import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stackEnv } from '@dv/test-kit';
import { OneTimeTokens } from './one-time.ts';
import { SessionStore } from './sessions.ts';

let redis: Redis;
const prefix = `web-test-${process.pid}-${Date.now()}`;

beforeAll(() => {
  redis = new Redis(stackEnv().REDIS_URL as string);
});

afterAll(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

describe('server-side sessions', () => {
  it('keeps only a hash of the id in Redis, and gives the data back for the id', async () => {
    const store = new SessionStore<{ account: string }>(redis, `${prefix}:a`, { idleMs: 60_000, absoluteMs: 3_600_000 });
    const s = await store.create('person-1', { account: 'acct-1' });
    expect(s.id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const keys = await redis.keys(`${prefix}:a*`);
    expect(keys.join(' ')).not.toContain(s.id);
    expect(await store.get(s.id)).toMatchObject({ subject: 'person-1', data: { account: 'acct-1' } });
    expect(await store.get('not-a-session')).toBeNull();
    expect(await store.get(undefined)).toBeNull();
    expect(await store.get('x'.repeat(5_000))).toBeNull();
  });

  it('ends on idle, at its absolute lifetime however busy, and on sign-out', async () => {
    let now = 1_000_000;
    const store = new SessionStore<object>(redis, `${prefix}:b`, { idleMs: 300, absoluteMs: 10_000 }, () => now);
    const idle = await store.create('p', {});
    await new Promise((r) => setTimeout(r, 450));
    expect(await store.get(idle.id)).toBeNull();

    const busy = await new SessionStore<object>(redis, `${prefix}:b`, { idleMs: 60_000, absoluteMs: 10_000 }, () => now).create('p', {});
    const reader = new SessionStore<object>(redis, `${prefix}:b`, { idleMs: 60_000, absoluteMs: 10_000 }, () => now);
    now += 9_999;
    expect(await reader.get(busy.id)).not.toBeNull();
    now += 1;
    expect(await reader.get(busy.id)).toBeNull();

    const out = await reader.create('p', {});
    await reader.end(out.id);
    expect(await reader.get(out.id)).toBeNull();
  });

  it('"sign out everywhere" ends every session of the person and no one else\'s', async () => {
    const store = new SessionStore<object>(redis, `${prefix}:c`, { idleMs: 60_000, absoluteMs: 3_600_000 });
    const mine = await Promise.all([1, 2, 3].map(() => store.create('me', {})));
    const theirs = await store.create('them', {});
    expect(await store.endAll('me')).toBe(3);
    for (const s of mine) expect(await store.get(s.id)).toBeNull();
    expect(await store.get(theirs.id)).not.toBeNull();
    expect(await store.endAll('me')).toBe(0);
  });
});

describe('one-time tokens', () => {
  it('can be looked at, are taken exactly once under a race, and expire', async () => {
    const tokens = new OneTimeTokens<{ email: string }>(redis, `${prefix}:d`);
    const t = await tokens.issue({ email: 'a@example.com' }, 60_000);
    expect(await tokens.peek(t)).toEqual({ email: 'a@example.com' });
    const takes = await Promise.all(Array.from({ length: 20 }, () => tokens.take(t)));
    expect(takes.filter(Boolean)).toHaveLength(1);
    expect(await tokens.take(t)).toBeNull();
    const short = await tokens.issue({ email: 'b@example.com' }, 200);
    await new Promise((r) => setTimeout(r, 350));
    expect(await tokens.take(short)).toBeNull();
    expect(await tokens.take('')).toBeNull();
    expect((await redis.keys(`${prefix}:d*`)).join(' ')).not.toContain(t);
  });
});
