import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseKey, revokeApiKey } from '@dv/accounts';
import { get, oauthFlow, pkce, sealedFrom, TEST_REDIRECT as REDIRECT } from '../../../packages/oauth/src/testing/flow.ts';
import { call, startGatewayHarness, type GatewayHarness, type TestAccount } from '../testing/harness.ts';

// The gateway's mounting of @dv/oauth, over HTTP against the in-process gateway (real MongoDB,
// Redis, NATS): discovery pointing here, the 401 challenges of /mcp and /v1, a token acting as its
// key on /v1 (sandbox too), and every replica's remembered token dropped at once on replay, token
// revocation and key revocation. The package's own tests (packages/oauth) cover registration
// rules, the consent step's checks, client authentication and hostile input; the browser-driven
// flow with the MCP SDK's client is in oauth-browser.test.ts.

let h: GatewayHarness;
let a: TestAccount;
const { register, authorizeUrl, post, approve, token } = oauthFlow(() => h.url);

beforeAll(async () => {
  h = await startGatewayHarness({ label: 'oauth', realBaseUrl: true, env: { OAUTH_REGISTRATIONS_PER_HOUR: '1000' } });
  a = await h.account();
}, 120_000);

afterAll(async () => {
  await h?.close();
});

describe('discovery', () => {
  it('serves both metadata documents in both forms, pointing at this gateway', async () => {
    for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/oauth-authorization-server/mcp']) {
      const r = await call(h.url, path);
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ issuer: h.url, authorization_endpoint: `${h.url}/oauth/authorize`, token_endpoint: `${h.url}/oauth/token`, registration_endpoint: `${h.url}/oauth/register`, revocation_endpoint: `${h.url}/oauth/revoke`, code_challenge_methods_supported: ['S256'] });
    }
    expect((await call(h.url, '/.well-known/oauth-protected-resource/mcp')).body).toMatchObject({ resource: `${h.url}/mcp`, authorization_servers: [h.url] });
    expect((await call(h.url, '/.well-known/oauth-protected-resource')).body).toMatchObject({ resource: h.url });
    expect((await call(h.url, '/.well-known/oauth-protected-resource', { method: 'POST', body: {} })).status).toBe(405);
  });

  it('a 401 on /mcp and on /v1 names the Bearer scheme and its resource metadata', async () => {
    const mcp = await call(h.url, '/mcp', { body: { jsonrpc: '2.0', id: 1, method: 'tools/list' } });
    expect(mcp.status).toBe(401);
    expect(mcp.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${h.url}/.well-known/oauth-protected-resource/mcp"`);
    const v1 = await call(h.url, '/v1/account', { key: 'dv_oat_nope' });
    expect(v1.status).toBe(401);
    expect(v1.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${h.url}/.well-known/oauth-protected-resource", error="invalid_token"`);
  });
});

describe('the consent step', () => {
  it('asks for a verification key and re-asks with the reason on a wrong one, a token or a key of another service', async () => {
    const clientId = (await register()).body.client_id!;
    const page = await get(authorizeUrl(clientId, pkce().challenge));
    const html = await page.text();
    expect(html).toContain('placeholder="dv_live_… or dv_test_…"');
    const sealed = sealedFrom(html);
    const wrongKey = a.live.slice(0, -1) + (a.live.endsWith('a') ? 'b' : 'a');
    const wrong = await post('/oauth/authorize', { request: sealed, api_key: wrongKey, decision: 'approve' });
    expect(wrong.status).toBe(400);
    expect(await wrong.text()).toContain('not valid');
    for (const other of ['dv_oat_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG', 'svc_live_abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMN']) {
      const r = await post('/oauth/authorize', { request: sealed, api_key: other, decision: 'approve' });
      expect(await r.text()).toContain('starts with dv_live_');
    }
  });
});

describe('tokens', () => {
  it('code + verifier gives tokens that act as the key; a wrong verifier does not burn the code; a replayed code revokes the grant', async () => {
    const clientId = (await register()).body.client_id!;
    const { verifier, challenge } = pkce();
    const code = await approve(clientId, challenge, a.live);
    const bad = await token({ grant_type: 'authorization_code', client_id: clientId, code, code_verifier: pkce().verifier, redirect_uri: REDIRECT });
    expect(bad).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const otherRedirect = await token({ grant_type: 'authorization_code', client_id: clientId, code, code_verifier: verifier, redirect_uri: 'http://127.0.0.1:45999/other' });
    expect(otherRedirect.body.error).toBe('invalid_grant');
    const ok = await token({ grant_type: 'authorization_code', client_id: clientId, code, code_verifier: verifier, redirect_uri: REDIRECT });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'verify' });
    expect(ok.body.access_token).toMatch(/^dv_oat_/);
    const me = await call(h.url, '/v1/account', { key: ok.body.access_token });
    expect(me.status).toBe(200);
    expect(me.body.account.id).toBe(a.account._id);
    // The same code again: refused, and the tokens it granted stop working.
    const replay = await token({ grant_type: 'authorization_code', client_id: clientId, code, code_verifier: verifier, redirect_uri: REDIRECT });
    expect(replay.body.error).toBe('invalid_grant');
    await expect.poll(async () => (await call(h.url, '/v1/account', { key: ok.body.access_token })).status, { timeout: 5_000, interval: 20 }).toBe(401);
  });

  it('refresh tokens rotate; revoking either token ends the grant at once', async () => {
    const clientId = (await register()).body.client_id!;
    const { verifier, challenge } = pkce();
    const first = await token({ grant_type: 'authorization_code', client_id: clientId, code: await approve(clientId, challenge, a.sandbox), code_verifier: verifier });
    const second = await token({ grant_type: 'refresh_token', client_id: clientId, refresh_token: first.body.refresh_token! });
    expect(second.status).toBe(200);
    expect(second.body.refresh_token).not.toBe(first.body.refresh_token);
    expect((await token({ grant_type: 'refresh_token', client_id: clientId, refresh_token: first.body.refresh_token! })).body.error).toBe('invalid_grant');
    expect((await call(h.url, '/v1/account', { key: second.body.access_token })).status).toBe(200);
    const revoked = await post('/oauth/revoke', { client_id: clientId, token: second.body.refresh_token! });
    expect(revoked.status).toBe(200);
    // Other replicas drop a remembered token from the MongoDB change stream, within milliseconds.
    await expect.poll(async () => (await call(h.url, '/v1/account', { key: second.body.access_token })).status, { timeout: 5_000, interval: 20 }).toBe(401);
    expect((await token({ grant_type: 'refresh_token', client_id: clientId, refresh_token: second.body.refresh_token! })).body.error).toBe('invalid_grant');
    // Unknown tokens revoke quietly (RFC 7009).
    expect((await post('/oauth/revoke', { client_id: clientId, token: 'dv_oat_unknown' })).status).toBe(200);
  });

  it('revoking the API key refuses its tokens at once and their refresh too', async () => {
    const b = await h.account();
    const clientId = (await register()).body.client_id!;
    const { verifier, challenge } = pkce();
    const t = await token({ grant_type: 'authorization_code', client_id: clientId, code: await approve(clientId, challenge, b.live), code_verifier: verifier });
    expect((await call(h.url, '/v1/account', { key: t.body.access_token })).status).toBe(200);
    await revokeApiKey(h.db, parseKey(b.live)!.prefix, b.account._id);
    await expect.poll(async () => (await call(h.url, '/v1/account', { key: t.body.access_token })).status, { timeout: 5_000, interval: 20 }).toBe(401);
    expect((await token({ grant_type: 'refresh_token', client_id: clientId, refresh_token: t.body.refresh_token! })).body.error).toBe('invalid_grant');
  });
});
