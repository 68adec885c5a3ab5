import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COLLECTIONS, type JobDoc } from '@dv/contracts';
import { axeViolations, checkedPage, horizontalOverflow, launchBrowser, type CheckedPage, type PageOptions } from '@dv/web/testing';
import { EVIL, startConsoleHarness, uploadJob, type ConsoleHarness } from '../testing/console.ts';
import { call, type TestAccount } from '../testing/harness.ts';

// The lists pages in Chromium: under the strict CSP nothing is refused, no console error, no
// dialog, nothing from another origin, axe finds no serious problem; hostile labels, webhook errors
// and CSV cells show as text; progress moves on an open page while the list runs and stops when
// it ends; the pages are complete with JavaScript off; a running list is canceled from its page;
// 360 px wide without overflow.

const LABEL = `Q4 ${EVIL}`;
const CSV = `email,${EVIL}\nann@example.com,${EVIL}\ncarl.invalid@example.com,"=1+1"\ndora.full@example.com,ok\n`;

let h: ConsoleHarness;
let browser: Browser;
let a: TestAccount;
let cookie: string;
let done: string;

beforeAll(async () => {
  h = await startConsoleHarness({ label: 'console_lists_browser', scheduler: true });
  browser = await launchBrowser();
  a = await h.account({ credits: 100, limits: { concurrentJobs: 20 } });
  cookie = (await h.sessionCookie(a.account.email)).split('=')[1]!;
  done = await uploadJob(h.url, a.live, CSV, LABEL);
  expect((await call(h.url, `/v1/jobs/${done}?wait=20`, { key: a.live })).body.status).toBe('completed');
  await h.db.collection<JobDoc>(COLLECTIONS.jobs.name).updateOne({ _id: done }, { $set: { webhook: { url: 'https://hooks.example.com/in', attempts: 1, last_status: 502, last_error: `answered ${EVIL}`, next_attempt_at: new Date(Date.now() + 60_000), delivered_at: null } } });
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await h?.close();
});

async function open(path: string, opts: PageOptions = {}): Promise<CheckedPage> {
  const p = await checkedPage(browser, h.url, opts);
  await p.page.context().addCookies([{ name: 'dv_console', value: cookie, url: h.url }]);
  await p.page.goto(`${h.url}${path}`);
  return p;
}

const noProblems = { csp: [], errors: [], dialogs: [], foreign: [] };

describe('the lists pages in Chromium', { timeout: 60_000 }, () => {
  it('the list page: strict CSP, axe clean, hostile label as text, upload link', async () => {
    const p = await open('/app/lists');
    try {
      expect(await p.page.locator('.job-title a').first().innerText()).toBe(LABEL);
      expect(await p.page.locator('img').count()).toBe(0);
      expect(await p.page.getByRole('link', { name: 'Upload a list' }).getAttribute('href')).toBe('/app/lists/new');
      expect(await axeViolations(p.page)).toEqual([]);
      expect(p.problems).toEqual(noProblems);
    } finally {
      await p.close();
    }
  });

  it('the job page: strict CSP, axe clean, label, webhook error and CSV cells as text', async () => {
    const p = await open(`/app/lists/${done}`);
    try {
      expect(await p.page.locator('h1').innerText()).toBe(LABEL);
      expect(await p.page.getByText(`answered ${EVIL}`).count()).toBe(1);
      const preview = p.page.locator('table').first();
      expect(await preview.locator('th').last().innerText()).toBe(EVIL);
      expect(await preview.locator('tbody tr').first().locator('td').last().innerText()).toBe(EVIL);
      expect(await p.page.locator('img, script:not([src])').count()).toBe(0);
      expect(await p.page.getByText('a finished list cannot be canceled').count()).toBe(1);
      expect(await axeViolations(p.page)).toEqual([]);
      expect(p.problems).toEqual(noProblems);
    } finally {
      await p.close();
    }
  });

  it('fits a 360 px phone, light and dark', async () => {
    for (const colorScheme of ['light', 'dark'] as const) {
      for (const path of ['/app/lists', `/app/lists/${done}`]) {
        const p = await open(path, { width: 360, height: 740, colorScheme });
        try {
          expect([path, await horizontalOverflow(p.page)]).toEqual([path, 0]);
          // Light was checked at full width above; the dark theme's contrast here.
          if (colorScheme === 'dark') expect(await axeViolations(p.page)).toEqual([]);
          expect(p.problems).toEqual(noProblems);
        } finally {
          await p.close();
        }
      }
    }
  }, 120_000);

  it('progress moves on an open page while the list runs, on the job page and the list page, and stops when it ends', async () => {
    h.scheduler!.hold(true);
    let jobId = '';
    const job = await (async () => {
      jobId = await uploadJob(h.url, a.sandbox, 'email\nm1@example.com\nm2@example.com\nm3@example.com\nm4@example.com\n', 'moving');
      return open(`/app/lists/${jobId}`);
    })();
    const list = await open('/app/lists');
    try {
      const text = job.page.locator('#job-live .progress-text');
      expect(await text.innerText()).toBe('0 of 4 (0%)');
      expect(await list.page.locator('.job-card').first().locator('.progress-text').innerText()).toBe('0 of 4 (0%)');
      h.scheduler!.hold(false);
      await expect.poll(() => text.innerText(), { timeout: 15_000 }).toBe('4 of 4 (100%)');
      await expect.poll(() => job.page.locator('#job-live .badge').first().innerText(), { timeout: 10_000 }).toBe('completed');
      await expect.poll(() => list.page.locator('.job-card').first().locator('.progress-text').innerText(), { timeout: 15_000 }).toBe('4 of 4 (100%)');
      // The last answer said the job ended: no more requests for it.
      let asked = 0;
      job.page.on('request', (r) => void (r.url().endsWith('/live') && asked++));
      await job.page.waitForTimeout(4_000);
      expect(asked).toBe(0);
      expect(job.problems).toEqual(noProblems);
      expect(list.problems).toEqual(noProblems);
    } finally {
      h.scheduler!.hold(false);
      await job.close();
      await list.close();
    }
  }, 90_000);

  it('is complete with JavaScript off', async () => {
    const p = await open(`/app/lists/${done}`, { javaScript: false });
    try {
      expect(await p.page.locator('#job-live .progress-text').innerText()).toBe('3 of 3 (100%)');
      expect(await p.page.getByRole('link', { name: 'CSV: Decision drop' }).count()).toBe(1);
      expect(await p.page.getByRole('figure').count()).toBe(2);
      const list = await open('/app/lists', { javaScript: false });
      expect(await list.page.locator('.job-card').count()).toBeGreaterThan(0);
      await list.close();
    } finally {
      await p.close();
    }
  });

  it('cancels a running list from its page, with the confirmation, and says the refund', async () => {
    h.scheduler!.hold(true);
    const p = await (async () => {
      const jobId = await uploadJob(h.url, a.live, 'email\nc1@example.com\nc2@example.com\n', 'stop me');
      return open(`/app/lists/${jobId}`, { acceptConfirms: true });
    })();
    try {
      await Promise.all([p.page.waitForURL(/\/app\/lists\/job_[a-z0-9]+$/), p.page.getByRole('button', { name: 'Cancel this list' }).click()]);
      await p.page.getByText('stop me was canceled: 2 addresses not checked, 2 credits refunded.').waitFor();
      expect(await p.page.getByText('This list was canceled.').count()).toBe(1);
      expect(await axeViolations(p.page)).toEqual([]);
      expect(p.problems).toEqual(noProblems);
    } finally {
      h.scheduler!.hold(false);
      await p.close();
    }
  }, 60_000);

  it('cancels with JavaScript off too (no confirmation to ask)', async () => {
    h.scheduler!.hold(true);
    const jobId = await uploadJob(h.url, a.live, 'email\nd1@example.com\n', 'no script');
    const p = await open(`/app/lists/${jobId}`, { javaScript: false });
    try {
      await Promise.all([p.page.waitForURL(`${h.url}/app/lists/${jobId}`), p.page.getByRole('button', { name: 'Cancel this list' }).click()]);
      await p.page.getByText('no script was canceled: 1 address not checked, 1 credit refunded.').waitFor();
      expect(p.problems).toEqual(noProblems);
    } finally {
      h.scheduler!.hold(false);
      await p.close();
    }
  });
});
