import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COLLECTIONS, type JobDoc } from '@dv/contracts';
import { addMember } from '@dv/accounts';
import { axeViolations, checkedPage, horizontalOverflow, launchBrowser } from '@dv/web/testing';
import { startConsoleHarness, type ConsoleHarness } from '../testing/console.ts';

// Uploading a list in Chromium: the form, the preview with a hostile CSV (its header and cells are
// text: no dialog, nothing refused by the CSP), axe, a 360 px phone, and the whole flow with
// JavaScript off, the file chosen through the file picker.

const EVIL = '<img src=x onerror=alert(1)>';
const CSV = Buffer.from(`email,"${EVIL}"\nann@example.com,"${EVIL}"\nbob@example.com,plain\n`);

let h: ConsoleHarness;
let browser: Browser;

beforeAll(async () => {
  h = await startConsoleHarness({ label: 'console_lists_browser' });
  browser = await launchBrowser();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await h?.close();
});

let seq = 0;
async function session(javaScript: boolean, width = 1280) {
  const t = await h.account({ credits: 100 });
  const email = `browser${seq++}@example.test`;
  await addMember(h.db, t.account._id, email, 'member', 'test');
  const cookie = await h.sessionCookie(email, { accountId: t.account._id });
  const p = await checkedPage(browser, h.url, { javaScript, width, height: 800 });
  await p.context.addCookies([{ name: 'dv_console', value: cookie.split('=')[1]!, url: h.url }]);
  return { ...p, account: t.account };
}

async function uploadAndPreview(p: Awaited<ReturnType<typeof session>>) {
  await p.page.goto(`${h.url}/app/lists/new`);
  await p.page.setInputFiles('#f-file', { name: 'evil.csv', mimeType: 'text/csv', buffer: CSV });
  await p.page.fill('#f-label', EVIL);
  await Promise.all([p.page.waitForURL(/\/app\/lists\/new\/[A-Za-z0-9_-]{24}$/), p.page.click('button:has-text("Upload and preview")')]);
}

describe('uploading a list in Chromium', () => {
  it('shows hostile cells as text under the CSP, passes axe, and fits 360 px', async () => {
    for (const width of [1280, 360]) {
      const p = await session(true, width);
      try {
        await p.page.goto(`${h.url}/app/lists/new`);
        await expect.poll(() => p.page.locator('.drop-note').count()).toBe(1);
        expect(await axeViolations(p.page)).toEqual([]);
        expect(await horizontalOverflow(p.page)).toBe(0);
        await uploadAndPreview(p);
        expect(await p.page.locator('th').nth(1).innerText()).toBe(EVIL);
        expect(await p.page.locator('td', { hasText: EVIL }).count()).toBe(1);
        expect(await p.page.locator('main img').count()).toBe(0);
        expect(await axeViolations(p.page)).toEqual([]);
        expect(await horizontalOverflow(p.page)).toBe(0);
        expect(p.problems).toEqual({ csp: [], errors: [], dialogs: [], foreign: [] });
      } finally {
        await p.close();
      }
    }
  }, 120_000);

  it('takes a file dropped onto the file field', async () => {
    const p = await session(true);
    try {
      await p.page.goto(`${h.url}/app/lists/new`);
      await p.page.locator('.drop-note').waitFor();
      await p.page.evaluate(() => {
        const dt = new DataTransfer();
        dt.items.add(new File(['email\ndropped@example.com\n'], 'dropped.csv', { type: 'text/csv' }));
        document.querySelector('[data-drop-zone]')!.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
      });
      expect(await p.page.locator('.drop-note').innerText()).toBe('Chosen: dropped.csv');
      await Promise.all([p.page.waitForURL(/\/app\/lists\/new\/[A-Za-z0-9_-]{24}$/), p.page.click('button:has-text("Upload and preview")')]);
      expect(await p.page.locator('td').first().innerText()).toBe('dropped@example.com');
      expect(p.problems).toEqual({ csp: [], errors: [], dialogs: [], foreign: [] });
    } finally {
      await p.close();
    }
  }, 60_000);

  it('works with JavaScript off from the file picker to the started job', async () => {
    const p = await session(false);
    try {
      await uploadAndPreview(p);
      expect(await p.page.getByText('Unique valid addresses').count()).toBe(1);
      await p.page.selectOption('#f-column', 'email');
      await Promise.all([p.page.waitForURL(/\?column=email$/), p.page.click('button:has-text("Use this column")')]);
      expect(await p.page.locator('dd strong').first().innerText()).toBe('2');
      await Promise.all([p.page.waitForURL(/\/app\/lists\/job_/), p.page.click('button:has-text("Start the list")')]);
      const jobId = new URL(p.page.url()).pathname.split('/').pop();
      const job = await h.db.collection<JobDoc>(COLLECTIONS.jobs.name).findOne({ _id: jobId });
      expect(job).toMatchObject({ account_id: p.account._id, total: 2, label: EVIL });
      expect([p.problems.csp, p.problems.dialogs, p.problems.foreign]).toEqual([[], [], []]);
    } finally {
      await p.close();
    }
  }, 60_000);
});
