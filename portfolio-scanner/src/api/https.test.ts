import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorEnvelope, startHarness, type Harness } from './testing/harness.ts';

// HTTPS only (docs/portfolio-scanner.md "HTTPS only"). The tests' client is on loopback: with
// TRUSTED_PROXIES naming it, it plays a TLS-terminating proxy forwarding a remote client; without,
// its forwarding headers are anyone's to send and must not make plain HTTP look like HTTPS.

const REMOTE = '203.0.113.7';
const HSTS = 'max-age=31536000';

describe('behind a trusted proxy', () => {
  let h: Harness;
  let key: string;
  beforeAll(async () => {
    h = await startHarness('phttps-trusted', { trustedProxies: ['127.0.0.1', '::1'] });
    ({ key } = await h.account('enterprise_max'));
  });
  afterAll(async () => h?.close());

  it('serves https with Strict-Transport-Security, on successes and errors', async () => {
    const ok = await h.call('GET', '/api/v1/', { key, headers: { 'x-forwarded-proto': 'https', 'x-forwarded-for': REMOTE } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('strict-transport-security')).toBe(HSTS);
    const noKey = await h.call('GET', '/api/v1/domains/', { headers: { 'x-forwarded-proto': 'https', 'x-forwarded-for': REMOTE } });
    expect(noKey.status).toBe(401);
    expect(noKey.headers.get('strict-transport-security')).toBe(HSTS);
  });

  it('refuses http with 403 https_required in the envelope, before the key is looked at', async () => {
    for (const opts of [{ key }, { key: 'svc_live_wrong' }, {}]) {
      const res = await h.call('GET', '/api/v1/domains/', { ...opts, headers: { 'x-forwarded-proto': 'http', 'x-forwarded-for': REMOTE } });
      expect(res.status).toBe(403);
      expect(res.body).toEqual(errorEnvelope('https_required'));
      expect(res.headers.get('strict-transport-security')).toBeNull();
      expect(res.headers.get('x-ratelimit-limit')).toBeNull();
    }
  });

  it('refuses http on unknown paths, writes and the document alike; nothing is added', async () => {
    const fwd = { 'x-forwarded-proto': 'http', 'x-forwarded-for': REMOTE };
    expect((await h.call('GET', '/api/v1/nope', { headers: fwd })).body).toEqual(errorEnvelope('https_required'));
    expect((await h.call('GET', '/api/v1/openapi.json', { headers: fwd })).status).toBe(403);
    const add = await h.call('POST', '/api/v1/domains/', { key, body: { domains: ['plain-http.example'] }, headers: fwd });
    expect(add.status).toBe(403);
    expect(h.scanRequests.flat()).not.toContain('plain-http.example');
    const list = await h.call('GET', '/api/v1/domains/', { key, headers: { 'x-forwarded-proto': 'https', 'x-forwarded-for': REMOTE } });
    expect(list.body.meta.total_count).toBe(0);
  });

  it('refuses http on the MCP connector and its OAuth endpoints too', async () => {
    const c = await startHarness('phttps-connector', { trustedProxies: ['127.0.0.1', '::1'], connector: true });
    try {
      const fwd = (proto: string) => ({ 'x-forwarded-proto': proto, 'x-forwarded-for': REMOTE });
      const mcp = await c.call('POST', '/mcp', { key, body: { jsonrpc: '2.0', id: 1, method: 'tools/list' }, headers: { ...fwd('http'), accept: 'application/json, text/event-stream' } });
      expect(mcp.status).toBe(403);
      expect(mcp.body).toEqual(errorEnvelope('https_required'));
      expect((await c.call('GET', '/.well-known/oauth-authorization-server', { headers: fwd('http') })).status).toBe(403);
      const meta = await c.call('GET', '/.well-known/oauth-authorization-server', { headers: fwd('https') });
      expect(meta.status).toBe(200);
      expect(meta.headers.get('strict-transport-security')).toBe(HSTS);
    } finally {
      await c.close();
    }
  });

  it('leaves /healthz, /readyz and /metrics alone (probes speak plain HTTP)', async () => {
    const res = await h.call('GET', '/healthz', { headers: { 'x-forwarded-proto': 'http', 'x-forwarded-for': REMOTE } });
    expect(res.status).toBe(200);
  });
});

describe('without trusted proxies', () => {
  let h: Harness;
  let key: string;
  beforeAll(async () => {
    h = await startHarness('phttps-untrusted');
    ({ key } = await h.account('enterprise_max'));
  });
  afterAll(async () => h?.close());

  it('ignores an untrusted X-Forwarded-Proto: https, and refuses the forwarded plain request', async () => {
    const res = await h.call('GET', '/api/v1/', { key, headers: { 'x-forwarded-proto': 'https' } });
    expect(res.status).toBe(403);
    expect(res.body).toEqual(errorEnvelope('https_required'));
    expect(res.headers.get('strict-transport-security')).toBeNull();
    const viaProxy = await h.call('GET', '/api/v1/', { key, headers: { 'x-forwarded-for': REMOTE } });
    expect(viaProxy.status).toBe(403);
  });

  it('serves plain HTTP straight from loopback (local use), without HSTS', async () => {
    const res = await h.call('GET', '/api/v1/', { key });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('ok');
    expect(res.headers.get('strict-transport-security')).toBeNull();
  });
});
