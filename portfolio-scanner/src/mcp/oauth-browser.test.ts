import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokePortfolioKey } from '@dv/accounts';
import { COLLECTIONS, type PortfolioKeyDoc } from '@dv/contracts';
import { ensureCommand } from '../../../infra/src/stack/install.ts';
import { errorEnvelope, startHarness, type Harness } from '../api/testing/harness.ts';
import { MCP_TOOL_NAMES } from './index.ts';

// The connector's OAuth flow as an MCP client lives it, against the in-process portfolio service:
// the MCP SDK's own client discovers OAuth from the 401 of /mcp, registers, and sends the user to
// the consent page; headless Chromium (Debian's, driven by Playwright) pastes a portfolio key and
// approves; the SDK exchanges the code (PKCE) and calls tools with a token of scope mcp, acting
// for that key's account only. Then the key is revoked and the next call is refused.

let h: Harness;
let a: { accountId: string; key: string };
let browser: Browser;
let callbacks: Server;
let redirectUrl: string;
const received: URLSearchParams[] = [];

/** What an MCP client application keeps: its registration, PKCE verifier and tokens. */
class MemoryProvider implements OAuthClientProvider {
  info: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;
  get redirectUrl(): string {
    return redirectUrl;
  }
  get clientMetadata(): OAuthClientMetadata {
    return { redirect_uris: [redirectUrl], client_name: 'Portfolio Agent', token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'] };
  }
  state(): string {
    return 'portfolio-state';
  }
  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.info = info;
  }
  tokens(): OAuthTokens | undefined {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens): void {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL): void {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(v: string): void {
    this.verifier = v;
  }
  codeVerifier(): string {
    return this.verifier;
  }
}

function connect(provider: OAuthClientProvider): { client: Client; transport: StreamableHTTPClientTransport } {
  const transport = new StreamableHTTPClientTransport(new URL(`${h.url}/mcp`), { authProvider: provider });
  return { client: new Client({ name: 'portfolio-oauth-test', version: '1.0.0' }), transport };
}

/** Approves `authorizationUrl` in the browser with `key`; returns the redirect's parameters. */
async function approveInBrowser(authorizationUrl: URL, key: string): Promise<URLSearchParams> {
  const page = await browser.newPage();
  try {
    await page.goto(authorizationUrl.href);
    await expect.poll(() => page.locator('h1').innerText()).toContain('Portfolio Agent');
    await page.fill('#api_key', key);
    await Promise.all([page.waitForURL((u) => u.href.startsWith(redirectUrl)), page.click('button[value="approve"]')]);
  } finally {
    await page.close();
  }
  return received.at(-1)!;
}

beforeAll(async () => {
  // Debian's Chromium: installed once with apt when missing (CI machines start without it).
  const executablePath = ensureCommand('chromium', 'chromium', (m) => console.log(m));
  h = await startHarness('poauth', { connector: true });
  a = await h.account('enterprise_max');
  await h.call('POST', '/api/v1/domains/', { key: a.key, body: { domains: ['oauth-one.example.test'] } });
  const other = await h.account('enterprise_max');
  await h.call('POST', '/api/v1/domains/', { key: other.key, body: { domains: ['not-yours.example.test'] } });
  callbacks = createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    if (u.pathname === '/callback') received.push(u.searchParams); // not the browser's /favicon.ico
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<p>Connected. You can close this window.</p>');
  });
  await new Promise<void>((resolve) => callbacks.listen(0, '127.0.0.1', resolve));
  redirectUrl = `http://127.0.0.1:${(callbacks.address() as AddressInfo).port}/callback`;
  browser = await chromium.launch({
    executablePath,
    headless: true,
    // No sandbox as root; no background traffic (the machine has no internet).
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}, 600_000);

afterAll(async () => {
  await browser?.close();
  callbacks?.close();
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
    const reg = await h.call('POST', '/oauth/register', { body: { redirect_uris: ['http://127.0.0.1:45999/cb'], client_name: 'Form Test', token_endpoint_auth_method: 'none' } });
    expect(reg.status).toBe(201);
    const q = new URLSearchParams({ client_id: reg.body.client_id, redirect_uri: 'http://127.0.0.1:45999/cb', response_type: 'code', code_challenge: 'x'.repeat(43), code_challenge_method: 'S256' });
    const page = await fetch(`${h.url}/oauth/authorize?${q}`);
    const html = await page.text();
    expect(html).toContain('Domain portfolio');
    expect(html).toContain('placeholder="svc_live_…"');
    const sealed = /name="request" value="([^"]+)"/.exec(html)![1]!;
    const r = await fetch(`${h.url}/oauth/authorize`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ request: sealed, api_key: 'dv_live_abcdefghijkl_mnopqrstuvwxyz', decision: 'approve' }) });
    expect(r.status).toBe(400);
    expect(await r.text()).toContain('starts with svc_live_');
    const noApi = await h.account(null);
    const r2 = await fetch(`${h.url}/oauth/authorize`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ request: sealed, api_key: noApi.key, decision: 'approve' }) });
    expect(r2.status).toBe(400);
    expect(await r2.text()).toContain('does not include API access');
  });
});

it('register, approve in the browser, token, MCP calls for that account only; the key revoked, the next call is refused', async () => {
  const provider = new MemoryProvider();
  const first = connect(provider);
  // No token yet: the SDK reads the 401's resource metadata, registers and asks for authorization.
  await expect(first.client.connect(first.transport)).rejects.toBeInstanceOf(UnauthorizedError);
  expect(provider.info?.client_id).toBeTruthy();
  const authorizationUrl = provider.authorizationUrl!;
  expect(authorizationUrl.href.startsWith(`${h.url}/oauth/authorize?`)).toBe(true);
  expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');

  const back = await approveInBrowser(authorizationUrl, a.key);
  expect(back.get('state')).toBe('portfolio-state');
  expect(back.get('error')).toBeNull();
  await first.transport.finishAuth(back.get('code')!);
  expect(provider.saved?.access_token).toMatch(/^svc_oat_/);
  expect(provider.saved?.scope).toBe('mcp');

  const second = connect(provider);
  await second.client.connect(second.transport);
  expect((await second.client.listTools()).tools.map((t) => t.name).sort()).toEqual([...MCP_TOOL_NAMES].sort());
  const listed = await second.client.callTool({ name: 'list_domains', arguments: {} });
  expect(listed.isError).toBeFalsy();
  expect((listed.structuredContent as { domains: { domain: string }[] }).domains.map((d) => d.domain)).toEqual(['oauth-one.example.test']);
  const foreign = await second.client.callTool({ name: 'get_domain', arguments: { domain: 'not-yours.example.test' } });
  expect(foreign.isError).toBe(true);

  // The token is for the connector only: the REST API takes keys.
  expect((await h.call('GET', '/api/v1/', { key: provider.saved!.access_token })).status).toBe(401);

  const key = await h.db.collection<PortfolioKeyDoc>(COLLECTIONS.portfolioApiKeys.name).findOne({ account_id: a.accountId });
  await revokePortfolioKey(h.db, a.accountId, key!.id);
  const refused = await h.call('POST', '/mcp', { key: provider.saved!.access_token, body: { jsonrpc: '2.0', id: 9, method: 'tools/list' }, headers: { accept: 'application/json, text/event-stream' } });
  expect(refused.status).toBe(401);
  expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"');
  // The SDK then tries its refresh token, which is refused as well (invalid_grant): the call fails.
  await expect(second.client.callTool({ name: 'list_domains', arguments: {} })).rejects.toMatchObject({ name: expect.stringMatching(/^(InvalidGrantError|UnauthorizedError)$/) });
  await second.client.close();
}, 120_000);
