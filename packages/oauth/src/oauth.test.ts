import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokePortfolioKey } from '@dv/accounts';
import { call } from '@dv/test-kit';
import { get, oauthFlow, pkce, sealedFrom, TEST_REDIRECT as REDIRECT } from './testing/flow.ts';
import { codeGrantAndReplay, keyRevocation, refreshReuseRevokesGrant, refreshRotationAndRevocation, type GrantTarget } from './testing/grants.ts';
import { startOAuthHarness, type OAuthHarness } from './testing/harness.ts';

// The OAuth endpoints over HTTP against one OAuthServer on a bare app (real MongoDB): discovery,
// registration rules, the consent step's checks, both grants, replay and revocation. The services
// test their own mounting (gateway/src/oauth, portfolio-scanner/src/mcp), with the MCP SDK's
// client and headless Chromium.

let h: OAuthHarness;
let a: { accountId: string; key: string };

/** Who a token acts as on the protected resource (or its 401). */
async function whoami(tokenValue: string | undefined): ReturnType<typeof call> {
  return call(h.url, '/mcp', { key: tokenValue });
}
const flow = oauthFlow(() => h.url);
const { register, authorizeUrl, post, approve, token } = flow;
/** A token on the bare app's protected resource, which answers as whom it acts; refused at once. */
const target: GrantTarget = {
  scope: 'mcp',
  accessPrefix: 'tst_oat_',
  actsAs: async (t, accountId) => {
    const me = await whoami(t);
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ account_id: accountId, scope: 'mcp' });
  },
  refused: async (t) => expect((await whoami(t)).status).toBe(401),
};

beforeAll(async () => {
  h = await startOAuthHarness('oauthpkg');
  a = await h.account();
}, 120_000);

afterAll(async () => {
  await h?.close();
});

describe('discovery', () => {
  it('serves both metadata documents in both forms, pointing at this service', async () => {
    for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/oauth-authorization-server/mcp']) {
      const r = await call(h.url, path);
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ issuer: h.url, authorization_endpoint: `${h.url}/oauth/authorize`, token_endpoint: `${h.url}/oauth/token`, registration_endpoint: `${h.url}/oauth/register`, revocation_endpoint: `${h.url}/oauth/revoke`, code_challenge_methods_supported: ['S256'] });
    }
    expect((await call(h.url, '/.well-known/oauth-protected-resource/mcp')).body).toMatchObject({ resource: `${h.url}/mcp`, authorization_servers: [h.url], scopes_supported: ['mcp'], resource_name: 'Test MCP server' });
    // Only the resources the service names get a document.
    expect((await call(h.url, '/.well-known/oauth-protected-resource')).status).toBe(404);
    const post = await call(h.url, '/.well-known/oauth-protected-resource/mcp', { method: 'POST', body: {} });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });

  it('a 401 on the resource names the Bearer scheme and its resource metadata', async () => {
    const none = await whoami(undefined);
    expect(none.status).toBe(401);
    const challenge = `Bearer resource_metadata="${h.url}/.well-known/oauth-protected-resource/mcp"`;
    expect((await call(h.url, '/mcp')).headers.get('www-authenticate')).toBe(challenge);
    expect((await call(h.url, '/mcp', { key: 'tst_oat_nope' })).headers.get('www-authenticate')).toBe(`${challenge}, error="invalid_token"`);
  });
});

describe('registration', () => {
  it('registers public and confidential clients; the secret is stored only as a hash', async () => {
    const pub = await register();
    expect(pub.status).toBe(201);
    expect(pub.body.client_id).toBeTruthy();
    expect(pub.body.client_secret).toBeUndefined();
    const conf = await register({ token_endpoint_auth_method: 'client_secret_post' });
    expect(conf.status).toBe(201);
    expect(conf.body.client_secret).toMatch(/^[0-9a-f]{64}$/);
    const stored = await h.db.collection('test_oauth_clients').findOne({ _id: conf.body.client_id as never });
    expect(stored).not.toBeNull();
    expect(JSON.stringify(stored)).not.toContain(conf.body.client_secret);
  });

  it.each([
    ['http on a public host', ['http://example.com/cb']],
    ['javascript:', ['javascript:alert(1)']],
    ['a fragment', ['https://app.example.com/cb#x']],
    ['no redirect URI', []],
  ])('refuses %s', async (_what, uris) => {
    const r = await register({ redirect_uris: uris });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('invalid_client_metadata');
  });

  it('refuses an unsupported client authentication method', async () => {
    const r = await register({ token_endpoint_auth_method: 'private_key_jwt' });
    expect(r.status).toBe(400);
  });
});

describe('the consent step', () => {
  let clientId: string;
  beforeAll(async () => {
    clientId = (await register()).body.client_id!;
  });

  it('shows an escaped consent page with no-framing and a form-action limited to here and the client', async () => {
    const res = await get(authorizeUrl(clientId, pkce().challenge));
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('Test &lt;b>Agent&lt;/b>');
    expect(html).not.toContain('<b>Agent</b>');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('content-security-policy')).toContain("form-action 'self' http://127.0.0.1:45999");
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('shows an error page, never a redirect, for an unknown client or a redirect URI that is not exactly registered', async () => {
    const unknown = await get(authorizeUrl('nope', pkce().challenge));
    expect(unknown.status).toBe(400);
    expect(unknown.headers.get('location')).toBeNull();
    // RFC 8252 would let a loopback port vary; we require the exact string.
    const otherPort = await get(authorizeUrl(clientId, pkce().challenge, { redirect_uri: 'http://127.0.0.1:45998/callback' }));
    expect(otherPort.status).toBe(400);
    expect(otherPort.headers.get('location')).toBeNull();
    expect(await otherPort.text()).toContain('exact match');
  });

  it.each([
    ['no code_challenge', { code_challenge: '' }, 'code_challenge is required'],
    ['the plain method', { code_challenge_method: 'plain' }, 'S256'],
    ['a token response type', { response_type: 'token' }, 'response_type must be'],
    ['a foreign resource', { resource: 'https://other.example/' }, 'resource must be'],
  ])('shows %s on an error page: a registered client is not vetted, so no redirect before consent', async (_what, extra, message) => {
    const res = await get(authorizeUrl(clientId, pkce().challenge, extra));
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(await res.text()).toContain(message);
  });

  it('re-asks on a wrong or revoked key, and refuses a forged or altered form', async () => {
    const page = await get(authorizeUrl(clientId, pkce().challenge));
    const sealed = sealedFrom(await page.text());
    const wrongKey = a.key.slice(0, -1) + (a.key.endsWith('a') ? 'b' : 'a');
    const wrong = await post('/oauth/authorize', { request: sealed, api_key: wrongKey, decision: 'approve' });
    expect(wrong.status).toBe(400);
    expect(await wrong.text()).toContain('not valid');
    const garbage = await post('/oauth/authorize', { request: sealed, api_key: 'hello', decision: 'approve' });
    expect(await garbage.text()).toContain('starts with svc_live_');
    const [payload, sig] = sealed.split('.');
    const altered = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), redirect_uri: 'https://evil.example/cb' })).toString('base64url');
    const forged = await post('/oauth/authorize', { request: `${altered}.${sig}`, api_key: a.key, decision: 'approve' });
    expect(forged.status).toBe(400);
    expect(forged.headers.get('location')).toBeNull();
  });

  it('a denial goes back as access_denied', async () => {
    const page = await get(authorizeUrl(clientId, pkce().challenge));
    const res = await post('/oauth/authorize', { request: sealedFrom(await page.text()), decision: 'deny' });
    expect(res.status).toBe(303);
    expect(new URL(res.headers.get('location')!).searchParams.get('error')).toBe('access_denied');
  });
});

describe('tokens', () => {
  it('code + verifier gives tokens that act as the key; a wrong verifier does not burn the code; a replayed code revokes the grant', async () => {
    await codeGrantAndReplay(flow, a, target);
  });

  it('refresh tokens rotate; revoking either token ends the grant at once', async () => {
    await refreshRotationAndRevocation(flow, a, target);
  });

  it('a rotated refresh token presented again revokes the whole grant', async () => {
    await refreshReuseRevokesGrant(flow, a, target);
  });

  it('a confidential client must present its secret (post or Basic)', async () => {
    const reg = await register({ token_endpoint_auth_method: 'client_secret_basic' });
    const { client_id: id, client_secret: secret } = reg.body as { client_id: string; client_secret: string };
    const { verifier, challenge } = pkce();
    const code = await approve(id, challenge, a.key);
    const none = await token({ grant_type: 'authorization_code', client_id: id, code, code_verifier: verifier });
    expect(none).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
    const wrong = await token({ grant_type: 'authorization_code', code, code_verifier: verifier }, { authorization: `Basic ${Buffer.from(`${id}:x${secret}`).toString('base64')}` });
    expect(wrong.status).toBe(401);
    const ok = await token({ grant_type: 'authorization_code', code, code_verifier: verifier }, { authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}` });
    expect(ok.status).toBe(200);
  });

  it('revoking the API key refuses its tokens at once and their refresh too', async () => {
    const b = await h.account();
    await keyRevocation(flow, b, async () => {
      const keyDoc = await h.db.collection('portfolio_api_keys').findOne({ account_id: b.accountId });
      await revokePortfolioKey(h.db, b.accountId, keyDoc!.id as number);
    }, target);
  });

  it('answers bad token requests in the OAuth error shape', async () => {
    expect((await token({ grant_type: 'password', client_id: 'x' })).body.error).toBe('invalid_client');
    const clientId = (await register()).body.client_id!;
    expect((await token({ grant_type: 'password', client_id: clientId })).body.error).toBe('unsupported_grant_type');
    expect((await token({ grant_type: 'authorization_code', client_id: clientId })).body.error).toBe('invalid_request');
    const json = await fetch(`${h.url}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ grant_type: 'refresh_token', client_id: clientId }) });
    expect(json.status).toBe(400);
    expect(json.headers.get('access-control-allow-origin')).toBe('*');
    expect((await fetch(`${h.url}/oauth/token`)).status).toBe(405);
  });
});

describe('hostile input', () => {
  // Property: whatever arrives at an OAuth endpoint, the answer is never a 5xx and nothing is
  // granted: no code is issued and no token is stored.
  const field = fc.oneof(fc.string({ maxLength: 60 }), fc.constantFrom('authorization_code', 'refresh_token', 'code', 'S256', 'plain', 'approve', REDIRECT, 'tst_oat_x', 'tst_ort_x', 'tst_oac_x'));
  const form = fc.dictionary(fc.constantFrom('client_id', 'client_secret', 'grant_type', 'code', 'code_verifier', 'redirect_uri', 'refresh_token', 'token', 'request', 'api_key', 'decision', 'response_type', 'code_challenge', 'code_challenge_method', 'state', 'resource', 'scope', 'x'), field, { maxKeys: 8 });

  it('never answers 5xx and grants nothing', async () => {
    const tokensBefore = await h.db.collection('test_oauth_tokens').countDocuments();
    const codesBefore = await h.db.collection('test_oauth_codes').countDocuments();
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('/oauth/token', '/oauth/revoke', '/oauth/authorize', '/oauth/authorize?', '/oauth/register'), form, fc.boolean(), async (path, f, asJson) => {
        const params = new URLSearchParams(f);
        const res = path.endsWith('?')
          ? await get(`${h.url}/oauth/authorize?${params}&client_id=${encodeURIComponent(f.client_id ?? '')}&client_id=dup`)
          : await fetch(`${h.url}${path}`, { method: 'POST', redirect: 'manual', headers: { 'content-type': asJson ? 'application/json' : 'application/x-www-form-urlencoded' }, body: asJson ? JSON.stringify(f) : params });
        await res.arrayBuffer();
        expect(res.status).toBeLessThan(500);
      }),
      { numRuns: 300 },
    );
    expect(await h.db.collection('test_oauth_tokens').countDocuments()).toBe(tokensBefore);
    expect(await h.db.collection('test_oauth_codes').countDocuments()).toBe(codesBefore);
  }, 120_000);
});
