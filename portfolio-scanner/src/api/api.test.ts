import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'node:http';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import { COLLECTIONS } from '@dv/contracts';
import { createApiKey, createPortfolioKey } from '@dv/accounts';
import { errorEnvelope, startHarness, type Harness } from './testing/harness.ts';

// Envelope on every error kind, authentication, plans, limits and keys (docs/portfolio-scanner.md "API").

let h: Harness;
let max: { accountId: string; key: string };

beforeAll(async () => {
  h = await startHarness('papi');
  max = await h.account('enterprise_max');
});
afterAll(async () => h?.close());

const LIMIT_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'x-api-quota-limit', 'x-api-quota-used'];

describe('envelope on every error', () => {
  it('401 authentication_required without a key, and for a header that is not Bearer', async () => {
    for (const headers of [{}, { authorization: 'Basic abc' }, { authorization: 'Bearer' }] as Record<string, string>[]) {
      const r = await h.call('GET', '/api/v1/', { headers });
      expect(r.status).toBe(401);
      expect(r.body).toEqual(errorEnvelope('authentication_required'));
      expect(r.headers.get('www-authenticate')).toMatch(/^Bearer/);
    }
  });

  it('401 invalid_api_key for a wrong key, and for keys of the other services', async () => {
    const { key: gatewayKey } = await createApiKey(h.db, max.accountId, 'verification', 'live');
    for (const key of [`svc_live_${'A'.repeat(40)}`, gatewayKey, `dk_free_${'a'.repeat(32)}`, 'svc_live_short']) {
      const r = await h.call('GET', '/api/v1/', { key });
      expect(r.status, key).toBe(401);
      expect(r.body).toEqual(errorEnvelope('invalid_api_key'));
    }
  });

  it('404 for unknown paths, inside and outside /api/v1', async () => {
    for (const path of ['/api/v1/nope/', '/nope', '/api/v2/domains/']) {
      const r = await h.call('GET', path, { key: max.key });
      expect(r.status, path).toBe(404);
      expect(r.body).toEqual(errorEnvelope('not_found'));
    }
  });

  it('405 with Allow for a method the path does not serve', async () => {
    const r = await h.call('PUT', '/api/v1/domains/', { key: max.key, body: {} });
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('GET, HEAD, POST');
    expect(r.body).toEqual(errorEnvelope('method_not_allowed'));
  });

  it('400 for malformed JSON and a body that is not JSON, 413 for an oversized body', async () => {
    const bad = await h.call('POST', '/api/v1/domains/', { key: max.key, raw: '{"domains": [' });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual(errorEnvelope('invalid_request'));
    const text = await h.call('POST', '/api/v1/domains/', { key: max.key, raw: 'a.test', headers: { 'content-type': 'text/plain' } });
    expect(text.status).toBe(400);
    expect(text.body).toEqual(errorEnvelope('invalid_request'));
    const big = await h.call('POST', '/api/v1/domains/', { key: max.key, raw: JSON.stringify({ domains: ['x'.repeat(1_100_000)] }) });
    expect(big.status).toBe(413);
    expect(big.body).toEqual(errorEnvelope('payload_too_large'));
  });

  it('400 validation_error naming the field for bad query and body values', async () => {
    for (const [method, path, body] of [
      ['GET', '/api/v1/domains/?limit=0', undefined],
      ['GET', '/api/v1/domains/?limit=5001', undefined],
      ['GET', '/api/v1/domains/?dmarc_status=strict', undefined],
      ['GET', '/api/v1/domains/abc/', undefined],
      ['POST', '/api/v1/domains/', { domains: Array.from({ length: 501 }, (_, i) => `d${i}.example.test`) }],
      ['POST', '/api/v1/domains/', { names: ['a.test'] }],
      ['PATCH', '/api/v1/domains/1/', {}],
    ] as const) {
      const r = await h.call(method, path, { key: max.key, body });
      expect(r.status, path).toBe(400);
      expect(r.body).toEqual(errorEnvelope('validation_error'));
    }
  });
});

describe('plans', () => {
  it('403 api_access_not_included for a plan without API access (and no portfolio plan), 403 account_inactive', async () => {
    for (const plan of ['business', null] as const) {
      const { key } = await h.account(plan);
      for (const [m, p] of [['GET', '/api/v1/'], ['GET', '/api/v1/domains/'], ['POST', '/api/v1/keys/']] as const) {
        const r = await h.call(m, p, { key, body: m === 'POST' ? { name: 'x' } : undefined });
        expect(r.status).toBe(403);
        expect(r.body).toEqual(errorEnvelope('api_access_not_included'));
      }
    }
    const inactive = await h.account('enterprise', { status: 'inactive' });
    expect((await h.call('GET', '/api/v1/', { key: inactive.key })).body).toEqual(errorEnvelope('account_inactive'));
  });

  it('the root links every resource by full URL and names the plan', async () => {
    const r = await h.call('GET', '/api/v1/', { key: max.key });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'ok', meta: {}, errors: [], data: { version: 'v1', plan: { name: 'Enterprise Max', requests_per_minute: 500, calls_per_day: 50_000, global_domain_view: false } } });
    expect(r.body.data.links.domains).toBe(`${h.url}/api/v1/domains/`);
    expect(r.body.data.links.dashboard_summary).toBe(`${h.url}/api/v1/dashboard/summary/`);
    expect(r.body.data.links.keys).toBe(`${h.url}/api/v1/keys/`);
  });
});

/** A GET with a Host header of the caller's choosing (fetch does not let a test set one). */
function getWithHost(path: string, host: string, key: string): Promise<{ status: number; body: { data: unknown; meta: Record<string, unknown> } }> {
  return new Promise((resolve, reject) => {
    const req = request(`${h.url}${path}`, { headers: { host, authorization: `Bearer ${key}` } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as never }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('links name PUBLIC_BASE_URL, never the Host header the client sent', () => {
  it('API root links, next and previous, and export file_url', async () => {
    const u = await h.account('enterprise');
    await h.call('POST', '/api/v1/domains/', { key: u.key, body: { domains: ['host1.example.test', 'host2.example.test', 'host3.example.test'] } });
    const now = new Date();
    await h.db.collection(COLLECTIONS.portfolioExports.name).insertOne({
      _id: 'exp_hostheadertest000000000000', id: 1, account_id: u.accountId, export_type: 'csv', status: 'completed', parameters: { folder_id: null, columns: ['domain'], filters: {} },
      row_count: 3, file_size: 10, rows_done: 3, rows_expected: 3, file_id: null, file_name: 'x.csv', content_type: 'text/csv', error: null, attempts: 1, lease_until: null, worker: null,
      created_at: now, completed_at: now, expires_at: new Date(now.getTime() + 3_600_000),
    } as never);
    const evil = 'attacker.example';
    const urls: string[] = [];
    const rootAnswer = await getWithHost('/api/v1/', evil, u.key);
    expect(rootAnswer.status).toBe(200);
    urls.push(...Object.values((rootAnswer.body.data as { links: Record<string, string> }).links));
    const page = await getWithHost('/api/v1/domains/?limit=1&offset=1', evil, u.key);
    expect(page.status).toBe(200);
    urls.push(page.body.meta.next as string, page.body.meta.previous as string);
    const exportsList = await getWithHost('/api/v1/exports/', evil, u.key);
    urls.push(...(exportsList.body.data as { file_url: string }[]).map((e) => e.file_url));
    const detail = await getWithHost('/api/v1/exports/1/', evil, u.key);
    urls.push((detail.body.data as { file_url: string }).file_url);
    expect(urls.length).toBeGreaterThan(8);
    for (const link of urls) expect(link.startsWith(`${h.url}/api/v1/`), link).toBe(true);
  });
});

describe('limits', () => {
  it('the five headers on every authenticated response, errors included; the quota counts calls', async () => {
    const a = await h.account('enterprise');
    const ok = await h.call('GET', '/api/v1/', { key: a.key });
    const notFound = await h.call('GET', '/api/v1/domains/999/', { key: a.key });
    expect(notFound.status).toBe(404);
    for (const r of [ok, notFound]) for (const name of LIMIT_HEADERS) expect(r.headers.get(name), name).toMatch(/^\d+$/);
    expect(ok.headers.get('x-ratelimit-limit')).toBe('100');
    expect(ok.headers.get('x-api-quota-limit')).toBe('10000');
    expect(ok.headers.get('x-api-quota-used')).toBe('1');
    expect(notFound.headers.get('x-api-quota-used')).toBe('2');
    expect(notFound.headers.get('x-ratelimit-remaining')).toBe('98');
    const reset = Number(ok.headers.get('x-ratelimit-reset'));
    expect(reset).toBeGreaterThan(Date.now() / 1000);
    expect(reset).toBeLessThanOrEqual(Date.now() / 1000 + 61);
  });

  it('429 rate_limit_exceeded past the per-minute limit of the key, with Retry-After and the limit in the detail; another key of the account is not limited', async () => {
    const a = await h.account('enterprise');
    const statuses: number[] = [];
    for (let i = 0; i < 100; i++) statuses.push((await h.call('GET', '/api/v1/', { key: a.key })).status);
    expect(statuses.every((s) => s === 200)).toBe(true);
    const r = await h.call('GET', '/api/v1/', { key: a.key });
    expect(r.status).toBe(429);
    expect(r.body).toEqual(errorEnvelope('rate_limit_exceeded'));
    expect(r.body.errors[0].detail).toMatch(/100 requests per minute.*retry in \d+ s/);
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(r.headers.get('x-ratelimit-remaining')).toBe('0');
    for (const name of LIMIT_HEADERS) expect(r.headers.get(name)).not.toBeNull();
    const second = await createPortfolioKey(h.db, a.accountId, 'second');
    expect((await h.call('GET', '/api/v1/', { key: second.key })).status).toBe(200);
  });

  it('429 once the account\'s daily quota is used up, across its keys; the refused call is not counted', async () => {
    const a = await h.account('enterprise');
    const day = new RateLimiterRedis({ storeClient: h.redis, keyPrefix: `${h.redisPrefix}papi:day`, points: 10_000, duration: 172_800, useRedisPackage: false });
    await day.consume(`${a.accountId}:${new Date().toISOString().slice(0, 10)}`, 9_999);
    const last = await h.call('GET', '/api/v1/', { key: a.key });
    expect(last.status).toBe(200);
    expect(last.headers.get('x-api-quota-used')).toBe('10000');
    const other = await createPortfolioKey(h.db, a.accountId, 'other');
    const r = await h.call('GET', '/api/v1/', { key: other.key });
    expect(r.status).toBe(429);
    expect(r.body.errors[0]).toMatchObject({ code: 'rate_limit_exceeded', detail: expect.stringMatching(/10000 calls.*100 requests.*retry in \d+ s/) });
    expect(r.headers.get('x-api-quota-used')).toBe('10000');
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('keys', () => {
  it('lists prefixes only, creates at most 3 active keys (409 after), and a revoked key fails at once', async () => {
    const a = await h.account('enterprise');
    const created = await h.call('POST', '/api/v1/keys/', { key: a.key, body: { name: 'ci' } });
    expect(created.status).toBe(201);
    const full: string = created.body.data.key;
    expect(full).toMatch(/^svc_live_[A-Za-z0-9]{40}$/);
    expect(created.body.data).toMatchObject({ id: 2, name: 'ci', key_prefix: full.slice(0, 12), is_active: true, expires_at: null, last_used_at: null });
    expect((await h.call('POST', '/api/v1/keys/', { key: a.key, body: { name: 'third' } })).status).toBe(201);
    const fourth = await h.call('POST', '/api/v1/keys/', { key: a.key, body: { name: 'fourth' } });
    expect(fourth.status).toBe(409);
    expect(fourth.body).toEqual(errorEnvelope('key_limit_reached'));

    const list = await h.call('GET', '/api/v1/keys/', { key: full });
    expect(list.body.data.map((k: { id: number }) => k.id)).toEqual([1, 2, 3]);
    expect(JSON.stringify(list.body)).not.toContain(full);
    for (const k of list.body.data) expect(Object.keys(k).sort()).toEqual(['created_at', 'expires_at', 'id', 'is_active', 'key_prefix', 'last_used_at', 'name']);
    expect(list.body.data.find((k: { id: number }) => k.id === 1).last_used_at).not.toBeNull();

    const revoked = await h.call('DELETE', '/api/v1/keys/2/', { key: a.key });
    expect(revoked.status).toBe(200);
    expect(revoked.body.data).toMatchObject({ id: 2, is_active: false });
    expect((await h.call('GET', '/api/v1/', { key: full })).body).toEqual(errorEnvelope('invalid_api_key'));
    // Room for a new one now; another account's key id is 404.
    expect((await h.call('POST', '/api/v1/keys/', { key: a.key, body: { name: 'again' } })).status).toBe(201);
    expect((await h.call('DELETE', '/api/v1/keys/1/', { key: max.key })).status).toBe(200);
    expect((await h.call('GET', '/api/v1/', { key: a.key })).status).toBe(200);
    expect((await h.call('DELETE', '/api/v1/keys/99/', { key: a.key })).body).toEqual(errorEnvelope('not_found'));
  });

  it('refuses an expiry in the past', async () => {
    const a = await h.account('enterprise');
    const r = await h.call('POST', '/api/v1/keys/', { key: a.key, body: { name: 'x', expires_at: '2001-01-01T00:00:00Z' } });
    expect(r.status).toBe(400);
    expect(r.body).toEqual(errorEnvelope('validation_error'));
  });
});
