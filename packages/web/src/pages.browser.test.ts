import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import express from 'express';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { proportionBar, progress, stackedColumns } from './charts.ts';
import { badge, copyable, facts, field, postForm, select, submit, table } from './components.ts';
import { pageSecurityHeaders } from './csp.ts';
import { csrfProtection } from './csrf.ts';
import { html } from './html.ts';
import { WEB_ASSETS_DIR, loadAssets, renderPage, type Chrome } from './index.ts';
import { axeViolations, checkedPage, horizontalOverflow, launchBrowser } from './testing/index.ts';

// The foundation's parts on one page, in real Chromium: under the strict CSP nothing is refused,
// axe finds no serious or critical problem, hostile values show as text, the page fits 360 px,
// follows the dark setting, and its form works with JavaScript off.

const EVIL = '<img src=x onerror=alert(1)><script>alert(2)</script>';
let browser: Browser;
let base: string;
let server: ReturnType<ReturnType<typeof express>['listen']>;
let liveTicks = 0;

function samplePage(token: string): ReturnType<typeof html> {
  return html`<h1>Sample ${EVIL}</h1>
    ${facts([['Plan', 'Business'], ['Label', EVIL]])}
    ${proportionBar('Results by status', [{ label: 'Deliverable', value: 812, tone: 'ok' }, { label: 'Risky', value: 95, tone: 'warn' }, { label: EVIL, value: 41, tone: 'bad' }])}
    ${stackedColumns('Checks by day', ['12-01', '12-02', '12-03'], [{ label: 'Deliverable', tone: 'ok', values: [120, 80, 140] }, { label: 'Undeliverable', tone: 'bad', values: [10, 25, 5] }])}
    ${progress(620, 1000, 'Job progress')}
    ${table('Rows', [{ header: 'Email', cell: (r: { email: string; status: string }) => r.email }, { header: 'Status', cell: (r) => badge(r.status, 'ok') }], [{ email: `${EVIL}@example.com`, status: 'deliverable' }], 'No rows.')}
    ${copyable('sk_test_123', 'the key')}
    ${postForm('/submit', token, html`${field({ name: 'label', label: 'Label', value: EVIL, hint: 'Shown in lists', error: 'Too long: 200 characters at most' })}${select({ name: 'mode', label: 'Mode', options: [{ value: 'live', label: 'Live' }, { value: 'sandbox', label: 'Sandbox' }], value: 'sandbox' })}${submit('Save')}`, { label: 'Sample form' })}
    <div data-live="/live" data-live-ms="1000" aria-live="polite"><p>tick 0</p></div>`;
}

beforeAll(async () => {
  const assets = loadAssets([WEB_ASSETS_DIR]);
  const chrome: Chrome = { product: 'Sample', homeHref: '/', nav: [{ href: '/', label: 'Home' }, { href: '/other', label: EVIL }], assets };
  const app = express();
  app.use(assets.handler);
  app.use(pageSecurityHeaders());
  app.use(express.urlencoded({ extended: false, limit: '16kb' }));
  app.use(csrfProtection({ secret: Buffer.alloc(32, 3), sessionId: () => undefined, reject: (_req, res, why) => void res.status(403).type('html').send(renderPage(chrome, { title: 'Refused', body: html`<h1>Refused</h1><p>${why}</p>` })) }));
  app.get('/', (req, res) => void res.type('html').send(renderPage(chrome, { title: 'Sample', path: '/', person: { email: 'owner@example.com', signOutAction: '/signout', csrf: (res.locals.csrfToken as () => string)() }, flash: [{ kind: 'error', text: EVIL }], body: samplePage((res.locals.csrfToken as () => string)()) })));
  app.get('/live', (_req, res) => void res.type('html').send(`<div><p>tick ${++liveTicks}</p></div>`));
  app.post('/submit', (req, res) => void res.type('html').send(renderPage(chrome, { title: 'Saved', body: html`<h1>Saved</h1><p id="saved">${String((req.body as Record<string, unknown>).mode)}</p>` })));
  server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchBrowser();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  server?.close();
});

describe('the foundation in Chromium', () => {
  it('renders under the strict CSP with nothing refused, no error, no dialog, nothing from elsewhere, and passes axe', async () => {
    const p = await checkedPage(browser, base);
    try {
      await p.page.goto(`${base}/`);
      await expect.poll(() => p.page.locator('button.copy').isVisible()).toBe(true);
      expect(await p.page.locator('h1').innerText()).toBe(`Sample ${EVIL}`);
      expect(await p.page.locator('.flash-error').innerText()).toBe(EVIL);
      expect(await p.page.locator('img').count()).toBe(0);
      expect(await axeViolations(p.page)).toEqual([]);
      expect(p.problems).toEqual({ csp: [], errors: [], dialogs: [], foreign: [] });
    } finally {
      await p.close();
    }
  });

  it('refreshes a live region while the page is open', async () => {
    const p = await checkedPage(browser, base);
    try {
      await p.page.goto(`${base}/`);
      await expect.poll(() => p.page.locator('[data-live] p').innerText(), { timeout: 10_000 }).toMatch(/^tick [1-9]/);
      expect(p.problems.csp).toEqual([]);
    } finally {
      await p.close();
    }
  });

  it('fits a 360 px phone and follows the dark setting', async () => {
    const p = await checkedPage(browser, base, { width: 360, height: 740, colorScheme: 'dark' });
    try {
      await p.page.goto(`${base}/`);
      expect(await horizontalOverflow(p.page)).toBe(0);
      expect(await p.page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe('rgb(13, 17, 23)');
      expect(await axeViolations(p.page)).toEqual([]);
    } finally {
      await p.close();
    }
  });

  it('works with JavaScript off: the form posts with its token, the copy button stays hidden', async () => {
    const p = await checkedPage(browser, base, { javaScript: false });
    try {
      await p.page.goto(`${base}/`);
      expect(await p.page.locator('button.copy').isVisible()).toBe(false);
      await p.page.selectOption('#f-mode', 'live');
      await Promise.all([p.page.waitForURL(`${base}/submit`), p.page.click('form[aria-label="Sample form"] button[type="submit"]')]);
      expect(await p.page.locator('#saved').innerText()).toBe('live');
      expect(p.problems.dialogs).toEqual([]);
    } finally {
      await p.close();
    }
  });
});
