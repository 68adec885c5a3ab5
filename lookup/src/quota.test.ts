import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextUtcMidnightMs } from '@dv/runtime';
import { quotaSubject } from './client.ts';
import { createFakeEngine, type FakeEngine } from './testing/fake-engine.ts';
import { startLookup, type LookupHarness } from './testing/harness.ts';

// Quota and cache accounting with real Redis: anonymous allowance per client IP and UTC day,
// cached answers free, 429 advice, and whose X-Forwarded-For is believed.

type Body = { cache: string; usage: { remaining_today: number; limit: number; tier: string } };

describe('anonymous quota and the response cache (behind a trusted proxy)', () => {
  let h: LookupHarness;
  let engine: FakeEngine;
  beforeAll(async () => {
    engine = createFakeEngine();
    h = await startLookup({ engine, env: { TRUSTED_PROXIES: '127.0.0.1,::1' }, label: 'quota' });
  });
  afterAll(async () => h?.close());
  const get = (path: string, ip: string) => fetch(`${h.url}${path}`, { headers: { 'X-Forwarded-For': ip } });

  it('allows 10 live lookups per IP per day, then 429 with Retry-After to 00:00 UTC and free-key advice', async () => {
    const ip = '203.0.113.10';
    for (let i = 1; i <= 10; i++) {
      const res = await get(`/v1/dns/d${i}.quota.test`, ip);
      expect(res.status).toBe(200);
      expect(((await res.json()) as Body).usage).toEqual({ remaining_today: 10 - i, limit: 10, tier: 'anonymous' });
    }
    const calls = engine.calls.length;
    const refused = await get('/v1/dns/d11.quota.test', ip);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const expected = Math.ceil((nextUtcMidnightMs(Date.now()) - Date.now()) / 1000);
    expect(Math.abs(Number(refused.headers.get('retry-after')) - expected)).toBeLessThanOrEqual(5);
    const body = (await refused.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ status: 429, code: 'quota_exhausted', tier: 'anonymous', limit: 10, remaining_today: 0, free_key: { mcp_tool: 'request_api_key', lookups_per_day: 100 } });
    expect(body.detail).toMatch(/free API key/);
    expect(body.detail).toMatch(/request_api_key/);
    expect(body.resets_at).toMatch(/T00:00:00\.000Z$/);
    expect(engine.calls.length).toBe(calls); // refused before the engine

    // A cached answer is still served after the allowance is spent, and costs nothing.
    const cached = await get('/v1/dns/d3.quota.test', ip);
    expect(cached.status).toBe(200);
    expect((await cached.json()) as Body).toMatchObject({ cache: 'cached', usage: { remaining_today: 0 } });

    // Another client is unaffected.
    expect((await get('/v1/dns/d11.quota.test', '203.0.113.11')).status).toBe(200);
  });

  it('answers a repeated lookup from the cache without counting it', async () => {
    const ip = '203.0.113.20';
    const first = (await (await get('/v1/spf/cached.quota.test', ip)).json()) as Body;
    const second = (await (await get('/v1/spf/CACHED.quota.test', ip)).json()) as Body;
    const third = (await (await get('/v1/spf/cached.quota.test', '203.0.113.21')).json()) as Body;
    expect(first).toMatchObject({ cache: 'live', usage: { remaining_today: 9 } });
    expect(second).toMatchObject({ cache: 'cached', usage: { remaining_today: 9 } });
    expect(third).toMatchObject({ cache: 'cached', usage: { remaining_today: 10 } });
    expect(engine.calls.filter((c) => c.input.target === 'cached.quota.test')).toHaveLength(1);
    // The cache is per (tool, target, detail): a different tool or detail level is a new lookup.
    expect(((await (await get('/v1/dmarc/cached.quota.test', ip)).json()) as Body).cache).toBe('live');
    expect(((await (await get('/v1/dns/cached.quota.test?detail=full', ip)).json()) as Body).cache).toBe('live');
    expect(((await (await get('/v1/dns/cached.quota.test', ip)).json()) as Body).cache).toBe('live');
  });

  it('counts IPv6 clients per /64', async () => {
    expect(quotaSubject('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(quotaSubject('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(quotaSubject('192.0.2.1')).toBe('192.0.2.1');
    await get('/v1/dns/v6a.quota.test', '2001:db8:7:7::1');
    const other = (await (await get('/v1/dns/v6b.quota.test', '2001:db8:7:7:ffff::2')).json()) as Body;
    expect(other.usage.remaining_today).toBe(8);
  });

  it('honours X-Forwarded-For from the trusted proxy: the right-most untrusted hop is the client', async () => {
    // A client-supplied first hop is ignored; the proxy appended the real address last.
    const a = (await (await get('/v1/dns/xff1.quota.test', '1.1.1.1, 203.0.113.30')).json()) as Body;
    const b = (await (await get('/v1/dns/xff2.quota.test', '2.2.2.2, 203.0.113.30')).json()) as Body;
    expect(a.usage.remaining_today).toBe(9);
    expect(b.usage.remaining_today).toBe(8);
  });
});

describe('X-Forwarded-For from an untrusted peer', () => {
  let h: LookupHarness;
  beforeAll(async () => {
    h = await startLookup({ engine: createFakeEngine(), env: { TRUSTED_PROXIES: '10.0.0.0/8', ANONYMOUS_LOOKUPS_PER_DAY: '3' }, label: 'quota_untrusted' });
  });
  afterAll(async () => h?.close());

  it('is ignored: every request counts against the socket address', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await fetch(`${h.url}/v1/dns/u${i}.quota.test`, { headers: { 'X-Forwarded-For': `203.0.113.${100 + i}` } });
      statuses.push(res.status);
      if (i < 3) expect(((await res.json()) as Body).usage).toEqual({ remaining_today: 2 - i, limit: 3, tier: 'anonymous' });
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
  });
});
