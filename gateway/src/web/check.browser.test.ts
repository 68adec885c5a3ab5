import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COLLECTIONS, itemId, type JobItemDoc } from '@dv/contracts';
import { axeViolations, checkedPage, horizontalOverflow, launchBrowser, type CheckedPage } from '@dv/web/testing';
import { startConsoleHarness, type ConsoleHarness } from '../testing/console.ts';

// The check page in Chromium: a check from the form to its result with nothing refused by the CSP
// and no serious axe finding, the sandbox banner, a hostile SMTP reply as text, the live region
// turning "still running" into the result, and the whole flow with JavaScript off.

const EVIL = '<img src=x onerror=alert(1)><script>alert(2)</script>';
let h: ConsoleHarness;
let browser: Browser;

beforeAll(async () => {
  h = await startConsoleHarness({ label: 'console_check_browser', scheduler: true, env: { CONSOLE_CHECK_WAIT_SECONDS: '1' } });
  browser = await launchBrowser();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await h?.close();
});

async function signedIn(opts: { sandbox?: boolean; javaScript?: boolean } = {}): Promise<CheckedPage> {
  const a = await h.account();
  const cookie = await h.sessionCookie(a.account.email, { sandbox: opts.sandbox });
  const p = await checkedPage(browser, h.url, { javaScript: opts.javaScript });
  await p.context.addCookies([{ name: 'dv_console', value: cookie.split('=')[1]!, url: h.url }]);
  return p;
}

async function checkInPage(p: CheckedPage, email: string): Promise<void> {
  await p.page.goto(`${h.url}/app/check`);
  await p.page.getByLabel('Email address').fill(email);
  await Promise.all([p.page.waitForURL(/\/app\/check\/job_\w+$/), p.page.getByRole('button', { name: 'Check' }).click()]);
}

describe('the check page in Chromium', () => {
  it('checks an address in sandbox mode, with the banner, a clean CSP and no serious axe finding', async () => {
    const p = await signedIn({ sandbox: true });
    try {
      await checkInPage(p, 'someone.catchall@example.com');
      expect(await p.page.locator('h1').innerText()).toBe('someone.catchall@example.com');
      expect(await p.page.locator('.sandbox-banner').isVisible()).toBe(true);
      expect(await p.page.locator('.facts').first().innerText()).toContain('risky (catch_all)');
      expect(await axeViolations(p.page)).toEqual([]);
      expect(p.problems).toEqual({ csp: [], errors: [], dialogs: [], foreign: [] });
    } finally {
      await p.close();
    }
  });

  it('shows a hostile SMTP reply as text and fits a 360 px phone', async () => {
    const p = await signedIn({ sandbox: true });
    try {
      await checkInPage(p, 'reply@example.com');
      const jobId = p.page.url().split('/').pop()!;
      await h.db.collection<JobItemDoc>(COLLECTIONS.jobItems.name).updateOne(
        { _id: itemId(jobId, 0) },
        { $set: { evidence: { mx_host: `mx.${EVIL}`, reply: { code: 550, enhanced: '5.1.1', text: `${EVIL}${'x'.repeat(300)}` }, catch_all_probe: 'not_run' } } },
      );
      await p.page.setViewportSize({ width: 360, height: 740 });
      await p.page.reload();
      expect(await p.page.locator('.smtp-reply').innerText()).toBe(`550 5.1.1 ${EVIL}${'x'.repeat(300)}`);
      expect(await p.page.locator('main img').count()).toBe(0);
      expect(await horizontalOverflow(p.page)).toBe(0);
      expect(await axeViolations(p.page)).toEqual([]);
      expect(p.problems).toEqual({ csp: [], errors: [], dialogs: [], foreign: [] });
    } finally {
      await p.close();
    }
  });

  it('turns "still running" into the result by itself while the page is open', async () => {
    const p = await signedIn({ sandbox: true });
    h.scheduler!.hold(true);
    try {
      await checkInPage(p, 'patient@example.com');
      expect(await p.page.getByRole('status').innerText()).toContain('Still checking');
      h.scheduler!.hold(false);
      await expect.poll(() => p.page.locator('[data-live] .facts').first().textContent(), { timeout: 20_000 }).toContain('deliverable (mailbox_confirmed)');
      expect(await axeViolations(p.page)).toEqual([]);
      expect(p.problems).toEqual({ csp: [], errors: [], dialogs: [], foreign: [] });
    } finally {
      h.scheduler!.hold(false);
      await p.close();
    }
  });

  it('works with JavaScript off: the form posts, an error is said on the form, the result shows', async () => {
    const p = await signedIn({ javaScript: false });
    try {
      await p.page.goto(`${h.url}/app/check`);
      await p.page.getByLabel('Email address').fill('no-at-sign');
      await Promise.all([p.page.waitForURL(`${h.url}/app/check`), p.page.getByRole('button', { name: 'Check' }).click()]);
      expect(await p.page.locator('.field-invalid').innerText()).toContain('That is not an email address we can check');
      await checkInPage(p, 'jane.doe@example.com');
      expect(await p.page.locator('.facts').first().innerText()).toContain('deliverable (mailbox_confirmed)');
      expect(await p.page.locator('.sandbox-banner').count()).toBe(0);
      // The refused address's page answers 400 on purpose; the browser logs that status, nothing else.
      expect(p.problems).toEqual({ csp: [], errors: ['Failed to load resource: the server responded with a status of 400 (Bad Request)'], dialogs: [], foreign: [] });
    } finally {
      await p.close();
    }
  });
});
