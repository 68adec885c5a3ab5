import { afterAll, beforeAll, expect, it } from 'vitest';
import { createApiKey, parseKey, revokeApiKey } from '@dv/accounts';
import { expectCleanConsentPage, HOSTILE_CLIENT_NAME, oauthFlow, pkce, startBrowserConsent, type BrowserConsent } from '@dv/oauth/testing';
import { MCP_TOOL_NAMES } from '../mcp/server.ts';
import { startConsoleHarness, type ConsoleHarness } from '../testing/console.ts';
import { call, type TestAccount } from '../testing/harness.ts';

// The whole connector flow as an MCP client lives it: the MCP SDK's own client discovers OAuth
// from the 401, registers, and sends the user to the consent page; headless Chromium (Debian's,
// driven by Playwright) pastes the key and approves; the SDK exchanges the code (PKCE) and calls
// tools with the token. Then the key is revoked and the next MCP call is refused. A person signed
// in to the console approves instead with a key of their account chosen on the page. The consent
// page and its error page are held to @dv/web's bars, with markup in the client's name.

let h: ConsoleHarness;
let a: TestAccount;
let consent: BrowserConsent;

beforeAll(async () => {
  consent = await startBrowserConsent({ clientName: 'Playwright Agent', state: 'browser-state', mcpClientName: 'oauth-browser-test' });
  h = await startConsoleHarness({ label: 'oauthui', scheduler: true, env: { OAUTH_REGISTRATIONS_PER_HOUR: '1000' } });
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

/** The browser cookie of a console session for the owner of `account`. */
async function consoleCookie(account: TestAccount) {
  const value = (await h.sessionCookie(account.account.email)).split('=')[1]!;
  return [{ name: 'dv_console', value, url: h.url }];
}

it('signed in to the console as an owner: approve with a chosen key; the connector acts as that key', async () => {
  const owner = await h.account();
  const chosen = await createApiKey(h.db, owner.account._id, 'For the agent', 'live');
  await createApiKey(h.db, owner.account._id, 'Newest, not chosen', 'live');
  const cookies = await consoleCookie(owner);
  const { provider, client } = await consent.authorize(h.url, {
    cookies,
    approve: async (page) => {
      await page.getByText(`Signed in as ${owner.account.email}`).waitFor();
      await page.selectOption('#key_id', chosen.record._id);
      await page.click('#approve_session');
    },
  });
  const me = await call(h.url, '/v1/account', { key: provider.saved!.access_token });
  expect([me.status, me.body.key.id, me.body.key.name]).toEqual([200, chosen.record._id, 'For the agent']);
  const account = await client.callTool({ name: 'get_account', arguments: {} });
  expect(JSON.stringify(account.structuredContent)).toContain(chosen.record._id);
  await client.close();
}, 120_000);

it("refuses another account's key id forged into the page's form, and without a session offers the paste form only", async () => {
  const owner = await h.account();
  const other = await h.account();
  const theirs = (await call(h.url, '/v1/account', { key: other.live })).body.key.id as string;
  const flow = oauthFlow(() => h.url);
  const clientId = (await flow.register()).body.client_id!;
  const url = flow.authorizeUrl(clientId, pkce().challenge);
  const context = await consent.browser.newContext();
  try {
    await context.addCookies(await consoleCookie(owner));
    const page = await context.newPage();
    await page.goto(url);
    await page.locator('#key_id option').first().evaluate((o, id) => ((o as HTMLOptionElement).value = id), theirs);
    await page.click('#approve_session');
    await page.getByText('That key is not an active key of this account.').waitFor();
    expect(page.url()).toContain('/oauth/authorize');
    const anonymous = await consent.browser.newPage();
    await anonymous.goto(url);
    expect(await anonymous.locator('#api_key').count()).toBe(1);
    expect(await anonymous.locator('#key_id').count()).toBe(0);
    await anonymous.close();
  } finally {
    await context.close();
  }
  expect((await call(h.url, '/v1/account', { key: other.live })).status).toBe(200);
}, 120_000);

it('the consent page and its error page: strict CSP, nothing refused or foreign, axe clean, 360 px, a hostile client name as text', async () => {
  const owner = await h.account();
  await createApiKey(h.db, owner.account._id, 'Agent <img src=x onerror=alert(3)>', 'live');
  const flow = oauthFlow(() => h.url);
  const clientId = (await flow.register({ client_name: HOSTILE_CLIENT_NAME })).body.client_id!;
  const url = flow.authorizeUrl(clientId, pkce().challenge);
  const heading = `Connect ${HOSTILE_CLIENT_NAME} to Email verification`;
  await expectCleanConsentPage(consent.browser, url, { heading, width: 360 });
  await expectCleanConsentPage(consent.browser, url, { heading, width: 1280, colorScheme: 'dark' });
  const signedIn = { heading, cookies: await consoleCookie(owner), shows: [`Signed in as ${owner.account.email}`] };
  await expectCleanConsentPage(consent.browser, url, { ...signedIn, width: 360 });
  await expectCleanConsentPage(consent.browser, url, { ...signedIn, width: 1280, colorScheme: 'dark' });
  await expectCleanConsentPage(consent.browser, flow.authorizeUrl('no-such-client', pkce().challenge), { heading: 'Authorization failed', width: 360, status: 400, shows: ['Unknown client_id'] });
}, 120_000);
