import type { Browser } from 'playwright-core';
import { expect } from 'vitest';
import { axeViolations, checkedPage, horizontalOverflow } from '@dv/web/testing';

// The consent page held to @dv/web's bars in a service's own browser test (docs/web.md "Testing
// pages"): nothing refused by the strict CSP, no console error, no dialog, nothing requested from
// another origin, no serious or critical axe violation, nothing wider than the viewport, the
// shared stylesheet applied, and a client name carrying markup shown as text.

/** A client name a registrant could choose: markup that would run if it were not text, and a word too long for a phone. */
export const HOSTILE_CLIENT_NAME = `<img src=x onerror=alert(1)>Evil <script>alert(2)</script> Agent${'W'.repeat(90)}`;

export interface ConsentPageCheck {
  /** Text the page's h1 shows. */
  heading: string;
  width?: number;
  colorScheme?: 'light' | 'dark';
  /** The page's status; Chromium logs a non-200 document as a failed load, which is then expected. */
  status?: 200 | 400;
  /** A signed-in person's cookies. */
  cookies?: { name: string; value: string; url: string }[];
  /** Text the page must also show (the signed-in part). */
  shows?: string[];
}

export async function expectCleanConsentPage(browser: Browser, url: string, o: ConsentPageCheck): Promise<void> {
  const p = await checkedPage(browser, new URL(url).origin, { width: o.width, colorScheme: o.colorScheme });
  try {
    if (o.cookies) await p.context.addCookies(o.cookies);
    const res = await p.page.goto(url);
    expect(res?.status()).toBe(o.status ?? 200);
    expect(await p.page.locator('h1').innerText()).toContain(o.heading);
    for (const text of o.shows ?? []) await p.page.getByText(text).first().waitFor();
    // The markup of a hostile name made no element.
    expect(await p.page.locator('body img, body script').count()).toBe(0);
    // base.css arrived through the CSP (it sets the body's margin to 0).
    expect(await p.page.evaluate(() => getComputedStyle(document.body).marginTop)).toBe('0px');
    expect(await axeViolations(p.page)).toEqual([]);
    expect(await horizontalOverflow(p.page)).toBe(0);
    const errors = o.status === 400 ? ['Failed to load resource: the server responded with a status of 400 (Bad Request)'] : [];
    expect(p.problems).toEqual({ csp: [], errors, dialogs: [], foreign: [] });
  } finally {
    await p.close();
  }
}
