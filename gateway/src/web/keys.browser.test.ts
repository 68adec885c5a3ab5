import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { axeViolations, checkedPage, horizontalOverflow, launchBrowser, type CheckedPage } from '@dv/web/testing';
import { call } from '../testing/harness.ts';
import { startConsoleHarness, type ConsoleHarness } from '../testing/console.ts';

// The API keys page in Chromium: a key created (its name hostile markup, shown as text), shown once
// with a working copy button, revoked through the confirmation; under the strict CSP nothing is
// refused, axe finds nothing serious, the page fits a phone; with JavaScript off the same works.

const HOSTILE = '<img src=x onerror=alert(1)>CRM';
let h: ConsoleHarness;
let browser: Browser;

beforeAll(async () => {
  h = await startConsoleHarness({ label: 'console_keys_browser' });
  browser = await launchBrowser();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await h?.close();
});

async function signedIn(javaScript: boolean, width?: number): Promise<CheckedPage & { accountId: string }> {
  const a = await h.account();
  const p = await checkedPage(browser, h.url, { javaScript, acceptConfirms: true, width });
  const value = (await h.sessionCookie(a.account.email)).split('=')[1]!;
  await p.context.addCookies([{ name: 'dv_console', value, url: h.url }]);
  return { ...p, accountId: a.account._id };
}

async function createAndRevoke(p: CheckedPage, javaScript: boolean): Promise<void> {
  const { page } = p;
  // axe runs in the page, so only with JavaScript on.
  const axe = async () => (javaScript ? axeViolations(page) : []);
  await page.goto(`${h.url}/app/keys`);
  expect(await axe()).toEqual([]);
  await page.getByLabel('Name').fill(HOSTILE);
  await page.getByLabel('Mode').selectOption('sandbox');
  await page.getByRole('button', { name: 'Create key' }).click();
  await page.getByText('this is the only time it is shown').waitFor();
  const key = await page.locator('code.copy-value').innerText();
  expect(key).toMatch(/^dv_test_/);
  expect(await page.locator('h1').innerText()).toContain(HOSTILE);
  expect(await axe()).toEqual([]);
  const copy = page.getByRole('button', { name: 'Copy the API key' });
  expect(await copy.isVisible()).toBe(javaScript);
  if (javaScript) {
    await copy.click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(key);
    // The outcome is said beside the button, which keeps the name it is announced by.
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Copied' }).count()).toBe(1);
    expect(await copy.isVisible()).toBe(true);
    expect(await axe()).toEqual([]);
  }
  expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
  await page.goto(`${h.url}/app/keys`);
  expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
  await page.goBack();
  // Back to the answer of the create POST: the browser asks to resend, it does not show the key.
  expect(await page.content()).not.toContain(key);
  expect((await call(h.url, '/v1/account', { key })).status).toBe(200);
  await page.goto(`${h.url}/app/keys`);
  expect(await page.content()).not.toContain(key);
  await page.getByRole('button', { name: `Revoke ${HOSTILE}` }).click();
  await page.getByText('is revoked').waitFor();
  expect((await call(h.url, '/v1/account', { key })).status).toBe(401);
  expect(await axe()).toEqual([]);
}

it('creates a key shown once with a copy button, and revokes it, with nothing refused and axe clean', async () => {
  const p = await signedIn(true);
  await p.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: h.url });
  try {
    await createAndRevoke(p, true);
    expect(p.problems).toEqual({ csp: [], errors: [], dialogs: [], foreign: [] });
  } finally {
    await p.close();
  }
}, 120_000);

it('works the same with JavaScript off, on a 360 px phone', async () => {
  const p = await signedIn(false, 360);
  try {
    await createAndRevoke(p, false);
    expect(p.problems).toEqual({ csp: [], errors: [], dialogs: [], foreign: [] });
  } finally {
    await p.close();
  }
}, 120_000);
