import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { AuthAttemptLimiter, connectRedis, createLogger, type RedisDependency } from '@dv/runtime';
import { stackEnv } from '@dv/test-kit';
import { startOAuthHarness, type OAuthHarness } from './testing/harness.ts';

// Abuse before authentication: the token endpoint and the consent form look credentials up, so
// each request costs the client address a point of the service's limiter (real Redis) and a
// refused client, grant or key costs more. Over the limit: 429 with Retry-After, in OAuth's JSON on
// the token endpoint and as a page on the consent form; registration and discovery are not metered.

let h: OAuthHarness;
let redis: RedisDependency;
const POINTS = 6;
const FAILURE = 3;

beforeAll(async () => {
  redis = await connectRedis(stackEnv().REDIS_URL as string, createLogger('oauth-metering', 'silent'));
  const attempts = new AuthAttemptLimiter({ redis: redis.redis, keyPrefix: `t:oauthmeter:${randomBytes(4).toString('hex')}:`, pointsPerMinute: POINTS, failurePoints: FAILURE });
  h = await startOAuthHarness('oauthmeter', { attempts });
}, 120_000);

afterAll(async () => {
  await h?.close();
  await redis?.close();
});

const form = (body: Record<string, string>, path: string) =>
  fetch(`${h.url}${path}`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(body) });

it('refused token requests use up the address; then 429 too_many_requests with Retry-After, and the consent form a 429 page', async () => {
  // Two refused clients cost 2 × 3 points of 6: the third request is over.
  for (let i = 0; i < 2; i++) {
    const r = await form({ grant_type: 'authorization_code', client_id: `nobody${i}`, code: 'x', code_verifier: 'y' }, '/oauth/token');
    expect(r.status).toBe(401);
    expect(((await r.json()) as { error: string }).error).toBe('invalid_client');
  }
  const over = await form({ grant_type: 'authorization_code', client_id: 'nobody', code: 'x', code_verifier: 'y' }, '/oauth/token');
  expect(over.status).toBe(429);
  expect(((await over.json()) as { error: string }).error).toBe('too_many_requests');
  expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
  const page = await form({ request: 'forged', decision: 'approve', api_key: 'x' }, '/oauth/authorize');
  expect(page.status).toBe(429);
  expect(page.headers.get('content-type')).toContain('text/html');
  expect(await page.text()).toContain('Too many attempts');
  // Registration and discovery stay open (registration has its own hourly limit).
  const reg = await fetch(`${h.url}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ redirect_uris: ['http://127.0.0.1:45999/cb'], token_endpoint_auth_method: 'none' }) });
  expect(reg.status).toBe(201);
  expect((await fetch(`${h.url}/.well-known/oauth-authorization-server`)).status).toBe(200);
});
