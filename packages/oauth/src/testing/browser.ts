import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Browser, Page } from 'playwright-core';
import { expect } from 'vitest';
import { launchBrowser } from '@dv/web/testing';

// The connector flow as an MCP client application and its user live it, for the services' browser
// tests (gateway/src/oauth, portfolio-scanner/src/mcp): the MCP SDK's client keeps its registration,
// PKCE verifier and tokens in a MemoryProvider; headless Chromium (Debian's, driven by Playwright)
// (@dv/web/testing's launcher) pastes the key on the consent page and approves; a loopback server receives the redirect.

/** What an MCP client application keeps: its registration, PKCE verifier and tokens. */
export class MemoryProvider implements OAuthClientProvider {
  info: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;
  readonly redirectUrl: string;
  private readonly clientName: string;
  private readonly stateValue: string;
  constructor(redirectUrl: string, clientName: string, state: string) {
    this.redirectUrl = redirectUrl;
    this.clientName = clientName;
    this.stateValue = state;
  }
  get clientMetadata(): OAuthClientMetadata {
    return { redirect_uris: [this.redirectUrl], client_name: this.clientName, token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'] };
  }
  state(): string {
    return this.stateValue;
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

/**
 * How the user approves on the consent page: by pasting a key, or (a service that offers approval
 * by its own session) by `approve` acting in a page whose browser carries `cookies`.
 */
export type ConsentApproval = string | { cookies: { name: string; value: string; url: string }[]; approve(page: Page): Promise<void> };

export interface BrowserConsent {
  /**
   * A new client application connects to `${baseUrl}/mcp` and is authorised by the user with `key`:
   * the SDK's client meets the 401, discovers, registers and asks for authorization (PKCE S256);
   * the browser approves; the SDK exchanges the code. Returns the provider (its tokens) and an MCP
   * client connected with them.
   */
  authorize(baseUrl: string, how: ConsentApproval): Promise<{ provider: MemoryProvider; client: Client }>;
  /** The headless Chromium, for a test's own pages. */
  readonly browser: Browser;
  close(): Promise<void>;
}

/**
 * Starts the callback server and headless Chromium (Debian's `chromium`, installed with apt when
 * missing: CI machines start without it). `clientName` is what the client registers and the consent
 * page shows; `state` the OAuth state it sends; `mcpClientName` its name in the MCP handshake.
 */
export async function startBrowserConsent(opts: { clientName: string; state: string; mcpClientName: string }): Promise<BrowserConsent> {
  const received: URLSearchParams[] = [];
  const callbacks: Server = createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    if (u.pathname === '/callback') received.push(u.searchParams); // not the browser's /favicon.ico
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<p>Connected. You can close this window.</p>');
  });
  await new Promise<void>((resolve) => callbacks.listen(0, '127.0.0.1', resolve));
  const redirectUrl = `http://127.0.0.1:${(callbacks.address() as AddressInfo).port}/callback`;
  let browser: Browser;
  try {
    browser = await launchBrowser();
  } catch (err) {
    callbacks.close();
    throw err;
  }
  const connect = (baseUrl: string, provider: OAuthClientProvider): { client: Client; transport: StreamableHTTPClientTransport } => {
    const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { authProvider: provider });
    return { client: new Client({ name: opts.mcpClientName, version: '1.0.0' }), transport };
  };
  /** Approves `authorizationUrl` in the browser (a key pasted, or a signed-in approval); returns the redirect's parameters. */
  const approve = async (authorizationUrl: URL, how: ConsentApproval): Promise<URLSearchParams> => {
    const context = await browser.newContext();
    try {
      if (typeof how !== 'string') await context.addCookies(how.cookies);
      const page = await context.newPage();
      await page.goto(authorizationUrl.href);
      await expect.poll(() => page.locator('h1').innerText()).toContain(opts.clientName);
      const act = async (): Promise<void> => {
        if (typeof how !== 'string') return how.approve(page);
        await page.fill('#api_key', how);
        await page.click('form:has(#api_key) button[value="approve"]');
      };
      await Promise.all([page.waitForURL((u) => u.href.startsWith(redirectUrl)), act()]);
    } finally {
      await context.close();
    }
    return received.at(-1)!;
  };
  return {
    browser,
    authorize: async (baseUrl, how) => {
      const provider = new MemoryProvider(redirectUrl, opts.clientName, opts.state);
      const first = connect(baseUrl, provider);
      // No token yet: the SDK reads the 401's resource metadata, registers and asks for authorization.
      await expect(first.client.connect(first.transport)).rejects.toBeInstanceOf(UnauthorizedError);
      expect(provider.info?.client_id).toBeTruthy();
      const authorizationUrl = provider.authorizationUrl!;
      expect(authorizationUrl.href.startsWith(`${baseUrl}/oauth/authorize?`)).toBe(true);
      expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
      const back = await approve(authorizationUrl, how);
      expect(back.get('state')).toBe(opts.state);
      expect(back.get('error')).toBeNull();
      await first.transport.finishAuth(back.get('code')!);
      const second = connect(baseUrl, provider);
      await second.client.connect(second.transport);
      return { provider, client: second.client };
    },
    close: async () => {
      await browser.close();
      callbacks.close();
    },
  };
}
