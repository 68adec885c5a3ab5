import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseKey, revokeApiKey } from '@dv/accounts';
import { startBrowserConsent, type BrowserConsent } from '@dv/oauth/testing';
import { MCP_TOOL_NAMES } from '../mcp/server.ts';
import { call, startGatewayHarness, type GatewayHarness, type TestAccount } from '../testing/harness.ts';

// The whole connector flow as an MCP client lives it: the MCP SDK's own client discovers OAuth
// from the 401, registers, and sends the user to the consent page; headless Chromium (Debian's,
// driven by Playwright) pastes the key and approves; the SDK exchanges the code (PKCE) and calls
// tools with the token. Then the key is revoked and the next MCP call is refused.

let h: GatewayHarness;
let a: TestAccount;
let consent: BrowserConsent;

beforeAll(async () => {
  consent = await startBrowserConsent({ clientName: 'Playwright Agent', state: 'browser-state', mcpClientName: 'oauth-browser-test' });
  h = await startGatewayHarness({ label: 'oauthui', realBaseUrl: true, scheduler: true });
  a = await h.account();
}, 600_000);

afterAll(async () => {
  await consent?.close();
  await h?.close();
});

it('register, approve in the browser, token, MCP calls; the key revoked, the next call is refused', async () => {
  const { provider, client } = await consent.authorize(h.url, a.live);
  expect(provider.saved?.access_token).toMatch(/^dv_oat_/);

  const tools = await client.listTools();
  expect(tools.tools.map((t) => t.name).sort()).toEqual([...MCP_TOOL_NAMES].sort());
  const account = await client.callTool({ name: 'get_account', arguments: {} });
  expect(account.isError).toBeFalsy();
  expect(JSON.stringify(account.structuredContent)).toContain(a.account._id);
  const verified = await client.callTool({ name: 'verify_email', arguments: { email: 'user@example.com' } });
  expect(verified.isError).toBeFalsy();

  await revokeApiKey(h.db, parseKey(a.live)!.prefix, a.account._id);
  await expect.poll(async () => (await call(h.url, '/v1/account', { key: provider.saved!.access_token })).status, { timeout: 5_000, interval: 20 }).toBe(401);
  // The SDK then tries its refresh token, which is refused as well (invalid_grant): the call fails.
  await expect(client.callTool({ name: 'get_account', arguments: {} })).rejects.toMatchObject({ name: expect.stringMatching(/^(InvalidGrantError|UnauthorizedError)$/) });
  await client.close();
}, 120_000);
