import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COLLECTIONS } from '@dv/contracts';
import { findPersonByEmail, membershipsOf, type Account } from '@dv/accounts';
import { until } from '@dv/test-kit';
import { axeViolations, checkedPage, launchBrowser } from '@dv/web/testing';
import { startConsoleHarness, type ConsoleHarness } from '../testing/console.ts';

// A new person's whole path in real Chromium, once with JavaScript and once without: sign up by
// emailed link, upload a CSV, read the preview and its cost, start the list, watch it finish, and
// download the addresses to send, with the upload's own columns kept. Every page is held to the
// strict CSP (nothing refused, no error, no dialog, nothing from elsewhere) and to axe. With
// JavaScript the list's page moves by itself and reloads when the list ends; without, the person
// reloads it.

let h: ConsoleHarness;
let browser: Browser;

beforeAll(async () => {
  h = await startConsoleHarness({ label: 'journey', scheduler: true });
  browser = await launchBrowser();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await h?.close();
});

// Sandbox-table addresses (the test scheduler answers live items from it): two to send, one to
// review, one to drop; a duplicate and a malformed row cost nothing.
const CSV = ['email,name,<b>note</b>', 'ann@example.com,Ann,<img src=x onerror=alert(1)>', 'invalid.bob@example.com,Bob,', 'cat.catchall@example.com,Cat,', 'Ann@example.com,Ann again,', 'not-an-address,Nope,', 'dan@example.com,Dan,'].join('\n');

/** axe runs as a script in the page: the pass with JavaScript holds the same pages to it. */
async function held(page: Page, javaScript: boolean): Promise<void> {
  if (javaScript) expect(await axeViolations(page), page.url()).toEqual([]);
}

async function journey(javaScript: boolean): Promise<void> {
  const email = `journey-${javaScript ? 'js' : 'nojs'}@example.test`;
  const p = await checkedPage(browser, h.url, { javaScript });
  const { page } = p;
  await h.signInBrowser(page, email);
  await held(page, javaScript);
  await page.goto(`${h.url}/app/lists/new`);
  await held(page, javaScript);
  await page.getByLabel('List file').setInputFiles({ name: 'contacts.csv', mimeType: 'text/csv', buffer: Buffer.from(CSV) });
  await page.getByLabel('Label (optional)').fill('First list');
  await page.getByRole('button', { name: 'Upload and preview' }).click();
  await page.waitForURL(/\/app\/lists\/new\/[^/]+$/);
  await held(page, javaScript);
  expect(await page.locator('main').innerText()).toContain('<img src=x onerror=alert(1)>');
  await page.getByRole('button', { name: 'Start the list (4 credits)' }).click();
  await page.waitForURL(/\/app\/lists\/job_[a-z0-9]+$/);
  const done = async () => {
    if (!javaScript) await page.reload();
    return /Status\s+completed/.test(await page.locator('main').innerText());
  };
  await until(done, 30_000, 'the list to finish', javaScript ? 250 : 500);
  await held(page, javaScript);
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'CSV: Decision send' }).click()]);
  const csv = readFileSync((await download.path())!, 'utf8');
  const lines = csv.trim().split(/\r?\n/);
  expect(lines).toHaveLength(3);
  expect(lines[0]).toMatch(/^email,.*name,<b>note<\/b>$/);
  expect(lines.slice(1).map((l) => l.split(',')[0]).sort()).toEqual(['ann@example.com', 'dan@example.com']);
  expect(csv).toContain('<img src=x onerror=alert(1)>');
  const person = (await findPersonByEmail(h.db, email))!;
  const [own] = await membershipsOf(h.db, person._id);
  const account = (await h.db.collection<Account>(COLLECTIONS.accounts.name).findOne({ _id: own!.account._id }))!;
  expect([account.plan, account.credits]).toEqual(['free', 96]);
  expect(p.problems).toEqual({ csp: [], errors: [], dialogs: [], foreign: [] });
  await p.close();
}

describe('a new person, from sign-up to a cleaned list', () => {
  it('gets there with JavaScript', () => journey(true), 120_000);
  it('gets there with JavaScript off', () => journey(false), 120_000);
});
