import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { nextUtcMidnightMs } from '@dv/runtime';
import { createFakeEngine, type FakeEngine } from '../testing/fake-engine.ts';
import { startLookup, type LookupHarness } from '../testing/harness.ts';
import { TOOLS } from '../tools.ts';

// The REST surface against a test double of the engine: envelope, routing, input checks, errors.
// Quotas and the cache are covered in quota.test.ts; the real engine in e2e.test.ts.

let h: LookupHarness;
let engine: FakeEngine;
// Every test spends from its own anonymous bucket: the harness trusts 127.0.0.1 as a proxy, so
// X-Forwarded-For picks the client address.
let n = 0;
const freshIp = () => `198.51.100.${++n}`;

beforeAll(async () => {
  engine = createFakeEngine();
  h = await startLookup({ engine, env: { TRUSTED_PROXIES: '127.0.0.1/32,::1', PUBLIC_BASE_URL: 'https://lookup.example' }, label: 'rest' });
});
afterAll(async () => h?.close());
beforeEach(() => {
  engine.calls.length = 0;
});

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${h.url}${path}`, { headers: { 'X-Forwarded-For': freshIp(), ...headers } });

async function expectProblem(res: Response, status: number, code: string): Promise<Record<string, unknown>> {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const body = (await res.json()) as Record<string, unknown>;
  expect(body).toMatchObject({ status, code });
  expect(typeof body.detail).toBe('string');
  return body;
}

describe('service index', () => {
  it('lists the seven lookup paths, limits, MCP, OpenAPI, docs and pricing', async () => {
    const res = await get('/');
    expect(res.status).toBe(200);
    const body = (await res.json()) as { lookups: { path: string }[]; limits: string; mcp: { url: string }; openapi: string; documentation: string; pricing: string };
    expect(body.lookups.map((l) => l.path)).toEqual(['/v1/dns/{target}', '/v1/email-security/{target}', '/v1/dkim/{target}', '/v1/whois/{target}', '/v1/spf/{target}', '/v1/dmarc/{target}', '/v1/blacklist/{target}']);
    expect(body.limits).toBe('https://lookup.example/v1/meta/limits');
    expect(body.mcp.url).toBe('https://lookup.example/mcp');
    expect(body.openapi).toBe('https://lookup.example/openapi.json');
    expect(body.documentation).toMatch(/^https:\/\//);
    expect(body.pricing).toMatch(/^https:\/\//);
  });
});

describe('lookup routes', () => {
  for (const spec of TOOLS.filter((t) => t.target !== 'record')) {
    it(`GET /v1/${spec.slug}/{target} answers the ${spec.name} envelope`, async () => {
      const res = await get(`/v1/${spec.slug}/Example.COM.`);
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('private, no-store');
      const body = (await res.json()) as Record<string, unknown>;
      expect(body).toMatchObject({
        tool: spec.name,
        summary: expect.stringContaining('example.com'),
        result: expect.any(Object),
        data: { meta: { domain: 'example.com' }, records: expect.any(Object) },
        report: expect.any(String),
        source: `https://lookup.example/${spec.slug}/example.com`,
        cache: 'live',
        usage: { tier: 'anonymous', limit: 10, remaining_today: 9 },
      });
      expect(engine.calls).toEqual([{ tool: spec.name, input: { target: 'example.com' } }]);
    });
  }

  it('passes detail=full on dns and email-security only', async () => {
    await get('/v1/dns/detail.test?detail=full');
    await get('/v1/email-security/detail.test?detail=full');
    await get('/v1/spf/detail.test?detail=full');
    expect(engine.calls.map((c) => c.input)).toEqual([{ target: 'detail.test', detail: 'full' }, { target: 'detail.test', detail: 'full' }, { target: 'detail.test' }]);
    await expectProblem(await get('/v1/dns/detail.test?detail=everything'), 400, 'invalid_request');
  });

  it('accepts IP targets on dns (PTR), whois and blacklist only, in one canonical spelling', async () => {
    expect((await get('/v1/whois/2001:DB8::0:1')).status).toBe(200);
    expect((await get('/v1/blacklist/127.0.0.2')).status).toBe(200);
    expect((await get('/v1/dns/192.0.2.1')).status).toBe(200);
    expect(engine.calls.map((c) => c.input.target)).toEqual(['2001:db8::1', '127.0.0.2', '192.0.2.1']);
    const refused = await expectProblem(await get('/v1/spf/192.0.2.1'), 400, 'invalid_target');
    expect(refused.detail).toMatch(/not an IP address/);
  });

  it('converts internationalised names to punycode', async () => {
    expect((await get(`/v1/dns/${encodeURIComponent('bücher.example')}`)).status).toBe(200);
    expect(engine.calls[0]?.input.target).toBe('xn--bcher-kva.example');
  });

  it('validates records by POST and by GET', async () => {
    const post = await fetch(`${h.url}/v1/validate`, { method: 'POST', headers: { 'content-type': 'application/json', 'X-Forwarded-For': freshIp() }, body: JSON.stringify({ record: 'v=spf1 -all' }) });
    expect(post.status).toBe(200);
    expect(await post.json()).toMatchObject({ tool: 'validate', source: 'https://lookup.example/validate', cache: 'live' });
    const viaGet = await get(`/v1/validate?record=${encodeURIComponent('v=DMARC1; p=reject')}`);
    expect(viaGet.status).toBe(200);
    expect(engine.calls.map((c) => c.input)).toEqual([{ record: 'v=spf1 -all' }, { record: 'v=DMARC1; p=reject' }]);
    await expectProblem(await fetch(`${h.url}/v1/validate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }), 400, 'invalid_request');
    await expectProblem(await get(`/v1/validate?record=${encodeURIComponent('v=spf1\n-all')}`), 400, 'invalid_request');
    await expectProblem(await fetch(`${h.url}/v1/validate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"record": ' }), 400, 'invalid_request');
    expect(engine.calls).toHaveLength(2);
  });
});

describe('bad input: 400 problem+json and the engine is never asked', () => {
  const cases: [string, string, RegExp][] = [
    ['not a domain', '/v1/dns/not_a..domain', /empty label/],
    ['single label', '/v1/dns/localhost', /at least two labels/],
    ['overlong target', `/v1/dns/${'a'.repeat(60)}.${'b'.repeat(60)}.${'c'.repeat(60)}.${'d'.repeat(60)}.${'e'.repeat(60)}.example`, /253/],
    ['overlong label', `/v1/spf/${'a'.repeat(64)}.example`, /maximum is 63/],
    ['control character NUL', '/v1/dmarc/acme%00.test', /control characters/],
    ['control character LF', '/v1/dkim/acme.test%0d%0aX-Injected:%201', /control characters/],
    ['email address', '/v1/email-security/alice%40acme.test', /email address/],
    ['URL', `/v1/whois/${encodeURIComponent('https://acme.test/x')}`, /URL/],
    ['spaces', '/v1/blacklist/acme%20test.example', /spaces/],
    ['hyphen at label edge', '/v1/dns/-acme.test', /hyphen/],
    ['numeric TLD', '/v1/spf/1.2.3.999', /not a valid domain|numeric/],
    ['huge target', `/v1/dns/${'a'.repeat(5000)}`, /characters long/],
  ];
  for (const [label, path, reason] of cases) {
    it(label, async () => {
      const body = await expectProblem(await get(path), 400, 'invalid_target');
      expect(body.detail).toMatch(reason);
      expect(engine.calls).toHaveLength(0);
    });
  }

  it('a target the engine refuses (TargetError) is a 400 and is not counted', async () => {
    const ip = freshIp();
    const body = await expectProblem(await get('/v1/dns/engine-refuses.test', { 'X-Forwarded-For': ip }), 400, 'invalid_target');
    expect(body.detail).toBe('The engine refuses this target.');
    const limits = (await (await get('/v1/meta/limits', { 'X-Forwarded-For': ip })).json()) as { used_today: number };
    expect(limits.used_today).toBe(0);
  });

  it('an engine failure is a 502 and is not counted', async () => {
    const ip = freshIp();
    await expectProblem(await get('/v1/dns/explode.test', { 'X-Forwarded-For': ip }), 502, 'bad_gateway');
    const limits = (await (await get('/v1/meta/limits', { 'X-Forwarded-For': ip })).json()) as { used_today: number };
    expect(limits.used_today).toBe(0);
  });
});

describe('errors everywhere are problem+json', () => {
  it('unknown tool paths are 404', async () => {
    await expectProblem(await get('/v1/mx/acme.test'), 404, 'not_found');
    await expectProblem(await get('/v1/dns'), 404, 'not_found');
    await expectProblem(await get('/v2/dns/acme.test'), 404, 'not_found');
  });

  it('other methods on known paths are 405 with Allow', async () => {
    const res = await fetch(`${h.url}/v1/dns/acme.test`, { method: 'DELETE' });
    await expectProblem(res, 405, 'method_not_allowed');
    expect(res.headers.get('allow')).toBe('GET, HEAD');
    const mcpGet = await fetch(`${h.url}/mcp`);
    await expectProblem(mcpGet, 405, 'method_not_allowed');
    expect(mcpGet.headers.get('allow')).toBe('POST');
  });

  it('a malformed or unknown key is 401, never silently anonymous', async () => {
    const bad = await get('/v1/dns/acme.test', { Authorization: 'Basic Zm9vOmJhcg==' });
    await expectProblem(bad, 401, 'invalid_api_key');
    expect(bad.headers.get('www-authenticate')).toMatch(/^Bearer/);
    await expectProblem(await get('/v1/dns/acme.test', { Authorization: 'Bearer dk_free_doesnotexist' }), 401, 'invalid_api_key');
    await expectProblem(await get('/v1/dns/acme.test', { Authorization: 'Bearer sk_live_paid' }), 401, 'invalid_api_key');
    expect(engine.calls).toHaveLength(0);
  });
});

describe('metrics', () => {
  it('counts lookups by tool and outcome, cache hits and quota refusals', async () => {
    const ip = freshIp();
    await get('/v1/dkim/metrics.test', { 'X-Forwarded-For': ip });
    await get('/v1/dkim/metrics.test', { 'X-Forwarded-For': ip });
    const text = await (await fetch(`${h.url}/metrics`)).text();
    expect(text).toMatch(/lookup_lookups_total\{[^}]*tool="dkim_discover"[^}]*outcome="live"[^}]*\} \d+/);
    expect(text).toMatch(/lookup_cache_hits_total\{[^}]*tool="dkim_discover"[^}]*\} [1-9]/);
    expect(text).toMatch(/lookup_lookups_total\{[^}]*outcome="invalid_target"/);
    expect(text).toContain('# TYPE lookup_quota_refusals_total counter');
    expect(text).toContain('lookup_engine_duration_seconds_bucket');
  });
});

describe('limits', () => {
  it('reports the caller standing and every tier, without counting', async () => {
    const ip = freshIp();
    await get('/v1/dns/limits.test', { 'X-Forwarded-For': ip });
    const res = await get('/v1/meta/limits', { 'X-Forwarded-For': ip });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({ tier: 'anonymous', limit: 10, used_today: 1, remaining_today: 9, resets_at: new Date(nextUtcMidnightMs(Date.now())).toISOString(), tiers: { anonymous: { lookups_per_day: 10 }, free: { lookups_per_day: 100 } }, cache: { ttl_seconds: 300, cached_answers_count: false } });
  });
});
