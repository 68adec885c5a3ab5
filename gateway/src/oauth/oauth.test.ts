import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseKey, revokeApiKey } from '@dv/accounts';
import { get, oauthFlow, pkce, sealedFrom } from '@dv/oauth/testing';
import { codeGrantAndReplay, keyRevocation, refreshRotationAndRevocation, type GrantTarget } from '@dv/oauth/testing';
import { call, startGatewayHarness, type GatewayHarness, type TestAccount } from '../testing/harness.ts';

// The gateway's mounting of @dv/oauth, over HTTP against the in-process gateway (real MongoDB,
// Redis, NATS): discovery pointing here, the 401 challenges of /mcp and /v1, a token acting as its
// key on /v1 (sandbox too), and every replica's remembered token dropped at once on replay, token
// revocation and key revocation. The package's own tests (packages/oauth) cover registration
// rules, the consent step's checks, client authentication and hostile input; the browser-driven
// flow with the MCP SDK's client is in oauth-browser.test.ts.

let h: GatewayHarness;
let a: TestAccount;
const flow = oauthFlow(() => h.url);
const { register, authorizeUrl, post } = flow;
/** A token on /v1 acts as its key's account (live or sandbox); other replicas drop a remembered token from the MongoDB change stream, within milliseconds. */
const target: GrantTarget = {
  scope: 'verify',
  accessPrefix: 'dv_oat_',
  actsAs: async (t, accountId) => {
    const me = await call(h.url, '/v1/account', { key: t });
    expect(me.status).toBe(200);
    expect(me.body.account.id).toBe(accountId);
  },
  refused: async (t) => {
    await expect.poll(async () => (await call(h.url, '/v1/account', { key: t })).status, { timeout: 5_000, interval: 20 }).toBe(401);
  },
};

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
    await codeGrantAndReplay(flow, { key: a.live, accountId: a.account._id }, target);
  });

  it('refresh tokens rotate; revoking either token ends the grant at once', async () => {
    await refreshRotationAndRevocation(flow, { key: a.sandbox, accountId: a.account._id }, target);
  });

  it('revoking the API key refuses its tokens at once and their refresh too', async () => {
    const b = await h.account();
    await keyRevocation(flow, { key: b.live, accountId: b.account._id }, () => revokeApiKey(h.db, parseKey(b.live)!.prefix, b.account._id), target);
  });
});
