// The admin CLI's lookup actions against a real lookup app (real Redis and MongoDB): a minted key
// works at once and replaces the email's earlier key; a quota reset gives the day's lookups back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFakeEngine } from '@dv/lookup/testing';
import { startLookup, type LookupHarness } from '@dv/lookup/testing';
import { mintFreeLookupKey, resetLookupQuota } from './lookup-admin.ts';

let h: LookupHarness;
beforeAll(async () => {
  h = await startLookup({ engine: createFakeEngine(), env: { FREE_KEY_LOOKUPS_PER_DAY: '2', ANONYMOUS_LOOKUPS_PER_DAY: '1' }, label: 'lookup-admin' });
});
afterAll(async () => {
  await h?.close();
});

// A new domain each time: cached answers are free and would not count.
let n = 0;
const lookup = (key?: string) => fetch(`${h.url}/v1/email-security/d${++n}.example.com`, key ? { headers: { authorization: `Bearer ${key}` } } : {});

describe('npm run admin: lookup keys and quotas', () => {
  it('mints a free key that works at once and replaces the earlier key of the same email', async () => {
    const first = await mintFreeLookupKey(h.db, 'dev@example.com');
    expect(first.api_key).toMatch(/^dk_free_/);
    expect((await lookup(first.api_key)).status).toBe(200);
    const second = await mintFreeLookupKey(h.db, 'dev@example.com');
    expect((await lookup(second.api_key)).status).toBe(200);
    expect((await lookup(first.api_key)).status).toBe(401);
    await expect(mintFreeLookupKey(h.db, 'not an address')).rejects.toThrow(/not an email address/);
  });

  it('gives a key owner, or an anonymous client, the day\'s lookups back', async () => {
    const { api_key } = await mintFreeLookupKey(h.db, 'busy@example.com');
    expect((await lookup(api_key)).status).toBe(200);
    expect((await lookup(api_key)).status).toBe(200);
    expect((await lookup(api_key)).status).toBe(429);
    const prefix = h.ctx.config.REDIS_KEY_PREFIX;
    expect(await resetLookupQuota(h.redis, { email: 'Busy@Example.com' }, prefix)).toMatchObject({ tier: 'free', had_usage: true });
    expect((await lookup(api_key)).status).toBe(200);

    expect((await lookup()).status).toBe(200);
    expect((await lookup()).status).toBe(429);
    expect(await resetLookupQuota(h.redis, { ip: '127.0.0.1' }, prefix)).toMatchObject({ tier: 'anonymous', had_usage: true });
    expect((await lookup()).status).toBe(200);
    expect(await resetLookupQuota(h.redis, { email: 'never@example.com' }, prefix)).toMatchObject({ had_usage: false });
  });
});
