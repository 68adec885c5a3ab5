import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { ensureCommand } from '@dv/stack';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

// The browser every page test drives: Debian's headless Chromium (installed with apt when missing;
// CI machines start without it) through playwright-core, no browser download. A checked page
// records what a person would never want to see: a CSP violation, a console error, a dialog
// (what an injected `alert()` would open), a request to another origin.

/** No sandbox as root; no background traffic (the machine has no internet). */
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export async function launchBrowser(log: (msg: string) => void = (m) => console.log(m)): Promise<Browser> {
  const executablePath = ensureCommand('chromium', 'chromium', log);
  return chromium.launch({ executablePath, headless: true, args: CHROMIUM_ARGS });
}

export interface PageProblems {
  /** "Refused to …" lines: anything the CSP blocked. */
  csp: string[];
  /** Console errors other than CSP refusals. */
  errors: string[];
  /** Messages of alert/confirm/prompt dialogs that opened (each dismissed). */
  dialogs: string[];
  /** URLs requested from another origin. */
  foreign: string[];
}

export interface CheckedPage {
  page: Page;
  context: BrowserContext;
  problems: PageProblems;
  close(): Promise<void>;
}

export interface PageOptions {
  javaScript?: boolean;
  colorScheme?: 'light' | 'dark';
  /** CSS pixels; 360 wide is the narrowest phone the pages are made for. */
  width?: number;
  height?: number;
  /** Confirmation dialogs the page opens on purpose (data-confirm) are accepted, not recorded. */
  acceptConfirms?: boolean;
}

/** A fresh context (its own cookies) and page, recording problems, for pages on `origin`. */
export async function checkedPage(browser: Browser, origin: string, opts: PageOptions = {}): Promise<CheckedPage> {
  const context = await browser.newContext({ javaScriptEnabled: opts.javaScript ?? true, colorScheme: opts.colorScheme ?? 'light', viewport: { width: opts.width ?? 1280, height: opts.height ?? 900 } });
  const page = await context.newPage();
  const problems: PageProblems = { csp: [], errors: [], dialogs: [], foreign: [] };
  page.on('console', (m) => {
    if (m.type() !== 'error') return;
    (/Refused to|Content Security Policy/i.test(m.text()) ? problems.csp : problems.errors).push(m.text());
  });
  page.on('pageerror', (e) => problems.errors.push(e.message));
  page.on('dialog', (d) => {
    if (opts.acceptConfirms && d.type() === 'confirm') return void d.accept();
    problems.dialogs.push(`${d.type()}: ${d.message()}`);
    void d.dismiss();
  });
  page.on('request', (r) => {
    const u = r.url();
    if (!u.startsWith(origin) && !u.startsWith('data:') && !u.startsWith('about:')) problems.foreign.push(u);
  });
  return { page, context, problems, close: () => context.close() };
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/**
 * axe-core's WCAG 2.1 A/AA rules on the page as it stands, violations of the given impacts only.
 * axe is evaluated through the DevTools protocol, which the page's CSP does not govern, so the page
 * is checked under its real policy.
 */
export async function axeViolations(page: Page, impacts: readonly string[] = ['serious', 'critical']): Promise<AxeViolation[]> {
  await page.evaluate(AXE_SOURCE);
  const found = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(ctx: unknown, opts: unknown): Promise<{ violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] }[] }> } }).axe;
    const r = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(' ')) }));
  });
  return found.filter((v) => impacts.includes(v.impact ?? ''));
}

/** How far the page is wider than its viewport (0 when nothing scrolls sideways). */
export async function horizontalOverflow(page: Page): Promise<number> {
  return page.evaluate(() => Math.max(0, document.documentElement.scrollWidth - window.innerWidth));
}
