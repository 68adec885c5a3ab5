import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseKey, revokeApiKey } from '@dv/accounts';
import { ensureCommand } from '../../../infra/src/stack/install.ts';
import { MCP_TOOL_NAMES } from '../mcp/server.ts';
import { call, startGatewayHarness, type GatewayHarness, type TestAccount } from '../testing/harness.ts';

// The whole connector flow as an MCP client lives it: the MCP SDK's own client discovers OAuth
// from the 401, registers, and sends the user to the consent page; headless Chromium (Debian's,
// driven by Playwright) pastes the key and approves; the SDK exchanges the code (PKCE) and calls
// tools with the token. Then the key is revoked and the next MCP call is refused.

let h: GatewayHarness;
let a: TestAccount;
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
    return { redirect_uris: [redirectUrl], client_name: 'Playwright Agent', token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'] };
  }
  state(): string {
    return 'browser-state';
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
  return { client: new Client({ name: 'oauth-browser-test', version: '1.0.0' }), transport };
}

beforeAll(async () => {
  // Debian's Chromium: installed once with apt when missing (CI machines start without it).
  const executablePath = ensureCommand('chromium', 'chromium', (m) => console.log(m));
  h = await startGatewayHarness({ label: 'oauthui', realBaseUrl: true, scheduler: true });
  a = await h.account();
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

it('register, approve in the browser, token, MCP calls; the key revoked, the next call is refused', async () => {
  const provider = new MemoryProvider();
  const first = connect(provider);
  // No token yet: the SDK reads the 401's resource metadata, registers and asks for authorization.
  await expect(first.client.connect(first.transport)).rejects.toBeInstanceOf(UnauthorizedError);
  expect(provider.info?.client_id).toBeTruthy();
  const authorizationUrl = provider.authorizationUrl!;
  expect(authorizationUrl.href.startsWith(`${h.url}/oauth/authorize?`)).toBe(true);
  expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');

  const page = await browser.newPage();
  await page.goto(authorizationUrl.href);
  await expect.poll(() => page.locator('h1').innerText()).toContain('Playwright Agent');
  await page.fill('#api_key', a.live);
  await Promise.all([page.waitForURL((u) => u.href.startsWith(redirectUrl)), page.click('button[value="approve"]')]);
  await page.close();
  const back = received.at(-1)!;
  expect(back.get('state')).toBe('browser-state');
  expect(back.get('error')).toBeNull();
  await first.transport.finishAuth(back.get('code')!);
  expect(provider.saved?.access_token).toMatch(/^dv_oat_/);

  const second = connect(provider);
  await second.client.connect(second.transport);
  const tools = await second.client.listTools();
  expect(tools.tools.map((t) => t.name).sort()).toEqual([...MCP_TOOL_NAMES].sort());
  const account = await second.client.callTool({ name: 'get_account', arguments: {} });
  expect(account.isError).toBeFalsy();
  expect(JSON.stringify(account.structuredContent)).toContain(a.account._id);
  const verified = await second.client.callTool({ name: 'verify_email', arguments: { email: 'user@example.com' } });
  expect(verified.isError).toBeFalsy();

  await revokeApiKey(h.db, parseKey(a.live)!.prefix, a.account._id);
  await expect.poll(async () => (await call(h.url, '/v1/account', { key: provider.saved!.access_token })).status, { timeout: 5_000, interval: 20 }).toBe(401);
  // The SDK then tries its refresh token, which is refused as well (invalid_grant): the call fails.
  await expect(second.client.callTool({ name: 'get_account', arguments: {} })).rejects.toMatchObject({ name: expect.stringMatching(/^(InvalidGrantError|UnauthorizedError)$/) });
  await second.client.close();
}, 120_000);
