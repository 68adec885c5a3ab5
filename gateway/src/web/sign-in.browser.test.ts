import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations, checkedPage, horizontalOverflow, launchBrowser } from '@dv/web/testing';
import { startConsoleHarness, type ConsoleHarness } from '../testing/console.ts';

// The pages a person sees before being signed in, and the error pages, in real Chromium: the form
// and its error, "check your inbox", the link's button page, a used link, an unknown page. Each
// under the strict CSP with nothing refused, axe clean, and fitting a 360 px phone in the dark.

let h: ConsoleHarness;
let browser: Browser;

beforeAll(async () => {
  h = await startConsoleHarness({ label: 'signin_browser' });
  browser = await launchBrowser();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await h?.close();
});

describe('signing in, in Chromium', () => {
  it('holds every step and error page to the CSP, axe and a 360 px phone', async () => {
    for (const look of [{ colorScheme: 'light' as const, width: 1280 }, { colorScheme: 'dark' as const, width: 360 }]) {
      const p = await checkedPage(browser, h.url, look);
      const { page } = p;
      const email = `browser-${look.colorScheme}@example.test`;
      const seen: string[] = [];
      const held = async (what: string) => {
        seen.push(what);
        expect(await axeViolations(page), what).toEqual([]);
        expect(await horizontalOverflow(page), what).toBeLessThanOrEqual(0);
      };
      await page.goto(`${h.url}/app/sign-in`);
      await held('the form');
      await page.getByLabel('Email address').fill('not an address');
      // The browser's own check would stop a malformed address; the server's answer is what is tested.
      await page.locator('form[aria-label="Sign in"]').evaluate((f) => f.setAttribute('novalidate', ''));
      await page.getByRole('button', { name: 'Email me a sign-in link' }).click();
      expect(await page.getByText('Enter an email address such as you@example.com.').isVisible()).toBe(true);
      expect(await page.getByLabel('Email address').getAttribute('aria-invalid')).toBe('true');
      await held('the form with its error');
      await page.getByLabel('Email address').fill(email);
      const since = h.relay.inbox.length;
      await page.getByRole('button', { name: 'Email me a sign-in link' }).click();
      await page.getByText('Check your inbox').first().waitFor();
      await held('check your inbox');
      const link = await h.mailedLink(email, since);
      await page.goto(link);
      await held('the link\'s button page');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(`${h.url}/app/`);
      await held('the overview');
      const used = await page.goto(link);
      expect(used?.status()).toBe(410);
      await held('a used link');
      const missing = await page.goto(`${h.url}/app/no-such-page`);
      expect(missing?.status()).toBe(404);
      await held('an unknown page');
      expect(seen).toHaveLength(7);
      // Chromium logs each error page's own status as a failed load: those three, and nothing else.
      expect(p.problems.errors).toEqual([400, 410, 404].map((n) => expect.stringContaining(`status of ${n}`)));
      expect({ ...p.problems, errors: [] }).toEqual({ csp: [], errors: [], dialogs: [], foreign: [] });
      await p.close();
    }
  }, 120_000);
});
