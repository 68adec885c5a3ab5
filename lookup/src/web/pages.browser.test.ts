import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCaptureRelay, type CaptureRelay } from '@dv/notify/testing';
import { axeViolations, checkedPage, horizontalOverflow, launchBrowser, type CheckedPage } from '@dv/web/testing';
import { createFakeEngine } from '../testing/fake-engine.ts';
import { startLookup, type LookupHarness } from '../testing/harness.ts';
import { keyLinkIn } from '../testing/web.ts';

// The lookup's pages in Chromium, with JavaScript off (they must work without it) and on, at 360 px
// and in the dark theme: the home page, a refused search, a tool page, "check your inbox", the key link's
// confirm page and the key shown once. Each under the strict CSP with nothing refused, no error or
// dialog, nothing loaded from elsewhere, and no serious or critical axe finding.

const EVIL = '<img src=x onerror=alert(1)><script>alert(2)</script>';
let relay: CaptureRelay;
let h: LookupHarness;
let browser: Browser;

beforeAll(async () => {
  relay = await startCaptureRelay();
  h = await startLookup({ engine: createFakeEngine(), label: 'web-browser', env: { SMTP_RELAY_URL: relay.url } });
  browser = await launchBrowser();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await h?.close();
  await relay?.close();
});

/** The page passes the bars: axe and no overflow (both run scripts in the page, so with scripts on only), nothing refused or foreign. */
async function meetsTheBars(p: CheckedPage, scripts = true, errors: string[] = []): Promise<void> {
  if (scripts) {
    expect(await axeViolations(p.page)).toEqual([]);
    expect(await horizontalOverflow(p.page)).toBeLessThanOrEqual(0);
  }
  expect(p.problems).toEqual({ csp: [], errors, dialogs: [], foreign: [] });
}

/** Chromium notes a page answered with an error status in the console; nothing else may be there. */
const STATUS_400 = 'Failed to load resource: the server responded with a status of 400 (Bad Request)';

describe('the lookup pages in Chromium', () => {
  it('home: search box, tools, allowance and key form, at 360 px in the dark', async () => {
    const p = await checkedPage(browser, h.url, { width: 360, colorScheme: 'dark' });
    try {
      await p.page.goto(`${h.url}/`);
      expect(await p.page.locator('h1').innerText()).toBe('Domain and email-security lookups');
      expect(await p.page.locator('#allowance').innerText()).toContain('10 of 10 lookups are left today');
      await meetsTheBars(p);
    } finally {
      await p.close();
    }
  });

  for (const scripts of [false, true]) {
    it(`a refused search is answered on the page, what was typed kept as text; an email address opens its domain's page (scripts ${scripts ? 'on' : 'off'}, 360 px)`, async () => {
      const p = await checkedPage(browser, h.url, { javaScript: scripts, width: 360 });
      try {
        await p.page.goto(`${h.url}/`);
        await p.page.getByLabel(/Domain, IP address/).fill(EVIL);
        await p.page.getByRole('button', { name: 'Look up' }).click();
        await p.page.waitForURL(/\/search\?q=/);
        expect(await p.page.locator('.error').innerText()).toContain('contains spaces');
        expect(await p.page.getByLabel(/Domain, IP address/).inputValue()).toBe(EVIL);
        expect(await p.page.locator('img').count()).toBe(0);
        await meetsTheBars(p, scripts, [STATUS_400]);

        await p.page.getByLabel(/Domain, IP address/).fill('you@example.com');
        await p.page.getByRole('button', { name: 'Look up' }).click();
        await p.page.waitForURL(`${h.url}/email-security/example.com`);
        expect(await p.page.locator('h1').innerText()).toBe('Email security check: example.com');
        expect(await p.page.locator('pre.report').innerText()).toBe('email_security_check report for example.com');
        await meetsTheBars(p, scripts, [STATUS_400]);
      } finally {
        await p.close();
      }
    });

    it(`the free key (scripts ${scripts ? 'on' : 'off'}, 360 px): the form, check your inbox, the link's button, the key shown once`, async () => {
      const p = await checkedPage(browser, h.url, { javaScript: scripts, width: 360 });
      try {
        await p.page.goto(`${h.url}/`);
        const before = relay.inbox.length;
        const email = `browser-${scripts ? 'js' : 'nojs'}@example.org`;
        await p.page.locator('#f-email').fill(email);
        await p.page.getByRole('button', { name: 'Email me a key link' }).click();
        await p.page.getByRole('heading', { name: 'Check your inbox' }).waitFor();
        expect(await p.page.locator('main').innerText()).toContain(email);
        expect(await p.page.locator('.allowance').innerText()).toContain('lookups are left today');
        await meetsTheBars(p, scripts);

        expect(relay.inbox).toHaveLength(before + 1);
        await p.page.goto(keyLinkIn(relay.inbox.at(-1)!.raw, h.url));
        expect(await p.page.locator('h1').innerText()).toBe('Get your free API key');
        await meetsTheBars(p, scripts);

        await p.page.getByRole('button', { name: 'Show my free API key' }).click();
        await p.page.getByRole('heading', { name: 'Your free API key' }).waitFor();
        expect(await p.page.locator('.copy-value').innerText()).toMatch(/^dk_free_[A-Za-z0-9_-]{43}$/);
        // The copy button is an enhancement: there with scripts, absent without.
        if (scripts) await expect.poll(() => p.page.locator('button.copy').isVisible()).toBe(true);
        else expect(await p.page.locator('button.copy').isVisible()).toBe(false);
        await meetsTheBars(p, scripts);
      } finally {
        await p.close();
      }
    });
  }
});
