import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokePortfolioKey } from '@dv/accounts';
import { COLLECTIONS, type PortfolioKeyDoc } from '@dv/contracts';
import { startBrowserConsent, type BrowserConsent } from '@dv/oauth/testing';
import { expectCleanConsentPage, get, HOSTILE_CLIENT_NAME, oauthFlow, pkce, sealedFrom } from '@dv/oauth/testing';
import { errorEnvelope, startHarness, type Harness } from '../api/testing/harness.ts';
import { MCP_TOOL_NAMES } from './index.ts';

// The connector's OAuth flow as an MCP client lives it, against the in-process portfolio service:
// the MCP SDK's own client discovers OAuth from the 401 of /mcp, registers, and sends the user to
// the consent page; headless Chromium (Debian's, driven by Playwright) pastes a portfolio key and
// approves; the SDK exchanges the code (PKCE) and calls tools with a token of scope mcp, acting
// for that key's account only. Then the key is revoked and the next call is refused. The consent
// page and its error page are held to @dv/web's bars, with markup in the client's name.

let h: Harness;
let a: { accountId: string; key: string };
let consent: BrowserConsent;
const flow = oauthFlow(() => h.url);

beforeAll(async () => {
  consent = await startBrowserConsent({ clientName: 'Portfolio Agent', state: 'portfolio-state', mcpClientName: 'portfolio-oauth-test' });
  h = await startHarness('poauth', { connector: true });
  a = await h.account('enterprise_max');
  await h.call('POST', '/api/v1/domains/', { key: a.key, body: { domains: ['oauth-one.example.test'] } });
  const other = await h.account('enterprise_max');
  await h.call('POST', '/api/v1/domains/', { key: other.key, body: { domains: ['not-yours.example.test'] } });
}, 600_000);

afterAll(async () => {
  await consent?.close();
  await h?.close();
});

describe('discovery', () => {
  it('the connector\'s metadata names this service, the scope mcp and the portfolio endpoints', async () => {
    const prm = await h.call('GET', '/.well-known/oauth-protected-resource/mcp');
    expect(prm.body).toMatchObject({ resource: `${h.url}/mcp`, authorization_servers: [h.url], scopes_supported: ['mcp'] });
    for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/oauth-authorization-server/mcp']) {
      expect((await h.call('GET', path)).body).toMatchObject({ issuer: h.url, token_endpoint: `${h.url}/oauth/token`, registration_endpoint: `${h.url}/oauth/register`, scopes_supported: ['mcp'] });
    }
    // Other methods and unknown OAuth paths answer in the API's envelope.
    const post = await h.call('POST', '/.well-known/oauth-protected-resource/mcp', { body: {} });
    expect(post.status).toBe(405);
    expect(post.body).toEqual(errorEnvelope('method_not_allowed'));
    expect((await h.call('GET', '/oauth/nothing')).body).toEqual(errorEnvelope('not_found'));
  });

  it('the consent page asks for a portfolio key and refuses another service\'s', async () => {
    const reg = await flow.register({ client_name: 'Form Test' });
    expect(reg.status).toBe(201);
    const page = await get(flow.authorizeUrl(reg.body.client_id!, pkce().challenge));
    const html = await page.text();
    expect(html).toContain('Domain portfolio');
    expect(html).toContain('placeholder="svc_live_…"');
    const sealed = sealedFrom(html);
    const r = await flow.post('/oauth/authorize', { request: sealed, api_key: 'dv_live_abcdefghijkl_mnopqrstuvwxyz', decision: 'approve' });
    expect(r.status).toBe(400);
    expect(await r.text()).toContain('starts with svc_live_');
    const noApi = await h.account(null);
    const r2 = await flow.post('/oauth/authorize', { request: sealed, api_key: noApi.key, decision: 'approve' });
    expect(r2.status).toBe(400);
    expect(await r2.text()).toContain('does not include API access');
  });

  it('the consent page and its error page: strict CSP, nothing refused or foreign, axe clean, 360 px, a hostile client name as text', async () => {
    const clientId = (await flow.register({ client_name: HOSTILE_CLIENT_NAME })).body.client_id!;
    const url = flow.authorizeUrl(clientId, pkce().challenge);
    const heading = `Connect ${HOSTILE_CLIENT_NAME} to Domain portfolio`;
    await expectCleanConsentPage(consent.browser, url, { heading, width: 360 });
    await expectCleanConsentPage(consent.browser, url, { heading, width: 1280, colorScheme: 'dark' });
    await expectCleanConsentPage(consent.browser, flow.authorizeUrl('no-such-client', pkce().challenge), { heading: 'Authorization failed', width: 360, status: 400, shows: ['Unknown client_id'] });
  }, 60_000);
});

it('register, approve in the browser, token, MCP calls for that account only; the key revoked, the next call is refused', async () => {
  const { provider, client } = await consent.authorize(h.url, a.key);
  expect(provider.saved?.access_token).toMatch(/^svc_oat_/);
  expect(provider.saved?.scope).toBe('mcp');

  expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual([...MCP_TOOL_NAMES].sort());
  const listed = await client.callTool({ name: 'list_domains', arguments: {} });
  expect(listed.isError).toBeFalsy();
  expect((listed.structuredContent as { domains: { domain: string }[] }).domains.map((d) => d.domain)).toEqual(['oauth-one.example.test']);
  const foreign = await client.callTool({ name: 'get_domain', arguments: { domain: 'not-yours.example.test' } });
  expect(foreign.isError).toBe(true);

  // The token is for the connector only: the REST API takes keys.
  expect((await h.call('GET', '/api/v1/', { key: provider.saved!.access_token })).status).toBe(401);

  const key = await h.db.collection<PortfolioKeyDoc>(COLLECTIONS.portfolioApiKeys.name).findOne({ account_id: a.accountId });
  await revokePortfolioKey(h.db, a.accountId, key!.id);
  const refused = await h.call('POST', '/mcp', { key: provider.saved!.access_token, body: { jsonrpc: '2.0', id: 9, method: 'tools/list' }, headers: { accept: 'application/json, text/event-stream' } });
  expect(refused.status).toBe(401);
  expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"');
  // The SDK then tries its refresh token, which is refused as well (invalid_grant): the call fails.
  await expect(client.callTool({ name: 'list_domains', arguments: {} })).rejects.toMatchObject({ name: expect.stringMatching(/^(InvalidGrantError|UnauthorizedError)$/) });
  await client.close();
}, 120_000);
