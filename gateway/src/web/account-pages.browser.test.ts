import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COLLECTIONS } from '@dv/contracts';
import { addMember, getAccount, listMembers, type Account } from '@dv/accounts';
import { axeViolations, checkedPage, horizontalOverflow, launchBrowser, type PageOptions } from '@dv/web/testing';
import { startConsoleHarness, type ConsoleHarness } from '../testing/console.ts';
import type { TestAccount } from '../testing/harness.ts';

// The account, plan and members pages in Chromium: under the strict CSP nothing is refused, no
// error or dialog, nothing from other sites, axe finds no serious or critical problem, a hostile
// account name and member address show as text, and the pages fit a 360 px phone. Rotating the
// secret asks first (data-confirm); inviting works with JavaScript off.

const EVIL = '<img src=x onerror=alert(1)><script>alert(2)</script>Acme & Sons';
const ODD_EMAIL = 'a&b+very.long.address.that.keeps.going.and.going@sub.example.test';
let h: ConsoleHarness;
let browser: Browser;
let t: TestAccount;
let ownerCookie: string;

beforeAll(async () => {
  h = await startConsoleHarness({ label: 'console_account_browser' });
  browser = await launchBrowser();
  t = await h.account({ plan: 'business' });
  await h.db.collection<Account>(COLLECTIONS.accounts.name).updateOne({ _id: t.account._id }, { $set: { name: EVIL } });
  ownerCookie = await h.sessionCookie(t.account.email);
  await addMember(h.db, t.account._id, ODD_EMAIL, 'member', 'test');
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await h?.close();
});

async function open(cookie: string, opts: PageOptions = {}) {
  const p = await checkedPage(browser, h.url, opts);
  await p.context.addCookies([{ name: 'dv_console', value: cookie.replace(/^dv_console=/, ''), url: h.url }]);
  return p;
}

const PAGES = ['/app/account', '/app/account?reveal=webhook-secret', '/app/plan', '/app/members'];

describe('the account pages in Chromium', () => {
  for (const path of PAGES) {
    it(`${path}: nothing refused, axe clean, hostile values as text, fits 360 px`, async () => {
      for (const opts of [{ width: 1280 }, { width: 360, colorScheme: 'dark' as const }]) {
        const p = await open(ownerCookie, opts);
        try {
          const res = await p.page.goto(`${h.url}${path}`);
          expect(res?.status()).toBe(200);
          expect(await p.page.locator('main').innerText()).toContain(EVIL);
          expect(await p.page.locator('main img, main script').count()).toBe(0);
          if (path === '/app/members') expect(await p.page.getByText(ODD_EMAIL).count()).toBe(1);
          expect(await axeViolations(p.page)).toEqual([]);
          if (opts.width === 360) expect(await horizontalOverflow(p.page)).toBe(0);
          expect(p.problems).toEqual({ csp: [], errors: [], dialogs: [], foreign: [] });
        } finally {
          await p.close();
        }
      }
    });
  }

  it('rotates the webhook secret after a confirmation, and shows the new one', async () => {
    const before = (await getAccount(h.db, t.account._id)).webhook_secret;
    const p = await open(ownerCookie, { acceptConfirms: true });
    try {
      await p.page.goto(`${h.url}/app/account`);
      await p.page.getByRole('button', { name: 'Rotate the webhook secret' }).click();
      await p.page.getByText('The webhook secret was rotated').waitFor();
      const after = (await getAccount(h.db, t.account._id)).webhook_secret;
      expect(after).not.toBe(before);
      expect(await p.page.locator('.copy-value').innerText()).toBe(after);
      expect(p.problems).toEqual({ csp: [], errors: [], dialogs: [], foreign: [] });
    } finally {
      await p.close();
    }
  });

  it('leaves the secret as it is when the confirmation is declined', async () => {
    const before = (await getAccount(h.db, t.account._id)).webhook_secret;
    const p = await open(ownerCookie);
    try {
      await p.page.goto(`${h.url}/app/account`);
      await p.page.getByRole('button', { name: 'Rotate the webhook secret' }).click();
      await expect.poll(() => p.problems.dialogs.length).toBe(1);
      expect(p.problems.dialogs[0]).toMatch(/^confirm: Rotate the webhook secret\?/);
      expect((await getAccount(h.db, t.account._id)).webhook_secret).toBe(before);
    } finally {
      await p.close();
    }
  });

  it('invites someone with JavaScript off', async () => {
    const p = await open(ownerCookie, { javaScript: false, width: 360 });
    try {
      await p.page.goto(`${h.url}/app/members`);
      await p.page.getByLabel('Email address').fill('browser-invite@example.test');
      await p.page.getByLabel('Role').selectOption('owner');
      await p.page.getByRole('button', { name: 'Invite' }).click();
      await p.page.getByText('browser-invite@example.test was added as owner.').waitFor();
      expect(await horizontalOverflow(p.page)).toBe(0);
      expect(p.problems).toEqual({ csp: [], errors: [], dialogs: [], foreign: [] });
      const found = (await listMembers(h.db, t.account._id)).find((m) => m.person.email === 'browser-invite@example.test');
      expect(found?.membership.role).toBe('owner');
    } finally {
      await p.close();
    }
  });
});
