import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createFakeEngine } from './testing/fake-engine.ts';
import { startLookup, type LookupHarness } from './testing/harness.ts';

// Abuse before authentication on the lookup service (shared @dv/runtime AuthAttemptLimiter and
// NegativeCache): presented free keys are looked up in MongoDB at most as often as the client's
// address is allowed (unknown keys cost more), and a key found unknown is not looked up again.

let h: LookupHarness;
let key: string;
beforeAll(async () => {
  h = await startLookup({ engine: createFakeEngine(), label: 'lookup_abuse', env: { KEY_ATTEMPTS_PER_IP_PER_MINUTE: '10', KEY_FAILURE_POINTS: '5', TRUSTED_PROXIES: '127.0.0.1' } });
  const req = await h.ctx.keys.createRequest('abuse@example.org', 60_000);
  key = (await h.ctx.keys.redeem(req.token))!.key;
});
afterAll(async () => h?.close());

const limits = (ip: string, bearer?: string) => fetch(`${h.url}/v1/meta/limits`, { headers: { 'X-Forwarded-For': ip, ...(bearer ? { Authorization: `Bearer ${bearer}` } : {}) } });
const madeUp = () => `dk_free_${'x'.repeat(30)}${Math.random().toString(36).slice(2, 15).padEnd(13, 'y')}`;

describe('free keys: per-address limiter and unknown-key cache', () => {
  it('an unknown key is looked up once; then the address is over and gets 429 with Retry-After, even with a good key', async () => {
    const ip = '198.51.100.20';
    const reads = vi.spyOn(h.ctx.keys, 'findActive');
    const unknown = madeUp();
    expect((await limits(ip, unknown)).status).toBe(401);
    expect((await limits(ip, unknown)).status).toBe(401);
    expect(reads).toHaveBeenCalledTimes(1);
    // Two failures cost the address's 10 points.
    const refused = await limits(ip, key);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('content-type')).toMatch(/problem\+json/);
    expect(((await refused.json()) as { code: string }).code).toBe('rate_limited');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(reads).toHaveBeenCalledTimes(1);
    // Anonymous use from that address is its own allowance, not affected.
    expect((await limits(ip)).status).toBe(200);
    // Another address is not affected either.
    const good = await limits('198.51.100.21', key);
    expect(good.status).toBe(200);
    expect(await good.json()).toMatchObject({ tier: 'free' });
    reads.mockRestore();
  });

  it('a good key costs one point per request, far less than a failure', async () => {
    for (let i = 0; i < 10; i++) expect((await limits('198.51.100.22', key)).status).toBe(200);
    expect((await limits('198.51.100.22', key)).status).toBe(429);
  });
});
