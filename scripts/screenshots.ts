// `npm run screenshots`: the console's main pages in real Chromium, light and dark, desktop and
// phone, as PNGs in docs/screenshots/ (the README shows them). It runs `npm run demo` in a folder
// and on ports of its own (a running `npm start` is left alone), makes the data a reader would
// have after a first day (a live list checked against the simulated internet, a sandbox list),
// signs in through the demo owner's emailed-style link from .local/…/demo.json, and stops the demo.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import type { Browser, BrowserContext } from 'playwright-core';
import { REPO_ROOT, SERVICE_NAMES } from '@dv/stack';
import { launchBrowser } from '@dv/web/testing';

const say = (msg: string) => process.stderr.write(`[screenshots] ${msg}\n`);
const OUT = join(REPO_ROOT, 'docs', 'screenshots');
const LOCAL = join(REPO_ROOT, '.local', 'screenshots');

/** The shots: a page, and the looks it is taken in. `job` stands for the live list's own page. */
const SHOTS: readonly { name: string; path: string; looks: readonly Look[] }[] = [
  { name: 'overview', path: '/app/', looks: ['light-desktop', 'dark-desktop', 'light-phone'] },
  { name: 'lists', path: '/app/lists', looks: ['light-desktop', 'dark-desktop'] },
  { name: 'job', path: 'job', looks: ['light-desktop', 'dark-desktop', 'light-phone', 'dark-phone'] },
  { name: 'upload', path: '/app/lists/new', looks: ['light-desktop'] },
  { name: 'check', path: '/app/check', looks: ['light-desktop', 'dark-phone'] },
  { name: 'account', path: '/app/account', looks: ['light-desktop', 'dark-desktop'] },
  { name: 'keys', path: '/app/keys', looks: ['light-desktop'] },
  { name: 'members', path: '/app/members', looks: ['light-desktop'] },
  { name: 'plan', path: '/app/plan', looks: ['light-desktop'] },
];
type Look = 'light-desktop' | 'dark-desktop' | 'light-phone' | 'dark-phone';
const VIEWPORTS = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;

const LIVE_LIST = ['alice@acme.test', 'bob@acme.test', 'nobody@acme.test', 'anyone@catchall.test', 'someone@nullmx.test', 'x@missing.test', 'sales@acme.test', 'not-an-address', 'Alice@acme.test'];

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

async function until<T>(what: string, timeoutMs: number, check: () => Promise<T | null | undefined>): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await check().catch(() => null);
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

interface Demo {
  gateway: string;
  console: string;
  console_signin: string;
  keys: { live: string; sandbox: string };
}

async function startDemo(): Promise<{ demo: Demo; stop(): Promise<void> }> {
  rmSync(LOCAL, { recursive: true, force: true });
  mkdirSync(LOCAL, { recursive: true });
  const ports: Record<string, string> = {};
  for (const name of SERVICE_NAMES) ports[`${name.toUpperCase().replace('-', '_')}_PORT`] = String(await freePort());
  const child = spawn(process.execPath, [join(REPO_ROOT, 'infra/src/cli/start.ts'), '--demo'], { env: { ...process.env, ...ports, DV_LOCAL_DIR: LOCAL, LOG_LEVEL: 'warn' }, stdio: ['ignore', 'ignore', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const file = join(LOCAL, 'demo.json');
  say('starting the demo (npm run demo) in .local/screenshots');
  const demo = await until('the demo to start', 600_000, async () => (existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Demo) : null));
  await until('the gateway', 60_000, async () => (await fetch(`${demo.gateway}/readyz`)).ok);
  return {
    demo,
    stop: async () => {
      child.kill('SIGINT');
      await exited;
    },
  };
}

async function api(demo: Demo, key: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${demo.gateway}${path}`, { method: body ? 'POST' : 'GET', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: body ? JSON.stringify(body) : undefined });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, unknown>;
}

/** A finished live list and a sandbox one; returns the live list's job id. */
async function makeData(demo: Demo): Promise<string> {
  const job = await api(demo, demo.keys.live, '/v1/jobs', { emails: LIVE_LIST, label: 'Spring newsletter <list>' });
  await api(demo, demo.keys.sandbox, '/v1/jobs', { emails: ['deliverable@example.com', 'undeliverable@example.com', 'risky@example.com'], label: 'Sandbox trial' });
  const id = String(job.id ?? job.job_id);
  say(`waiting for list ${id} to finish`);
  await until('the live list', 300_000, async () => ((await api(demo, demo.keys.live, `/v1/jobs/${id}`)).status === 'completed' ? true : null));
  return id;
}

async function signedInContext(browser: Browser, demo: Demo): Promise<BrowserContext> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(demo.console_signin);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/\/app\/(?!sign-in)/);
  await page.close();
  return context;
}

async function shoot(browser: Browser, signedIn: BrowserContext, demo: Demo, jobId: string): Promise<number> {
  const state = await signedIn.storageState();
  let made = 0;
  for (const shot of SHOTS) {
    const path = shot.path === 'job' ? `/app/lists/${jobId}` : shot.path;
    for (const look of shot.looks) {
      const [scheme, device] = look.split('-') as ['light' | 'dark', 'desktop' | 'phone'];
      const context = await browser.newContext({ storageState: state, colorScheme: scheme, viewport: VIEWPORTS[device], deviceScaleFactor: 1 });
      const page = await context.newPage();
      const res = await page.goto(new URL(path, demo.gateway).toString());
      if (!res?.ok()) throw new Error(`${path} answered ${res?.status()}`);
      await page.screenshot({ path: join(OUT, `${shot.name}-${look}.png`), fullPage: device === 'desktop' });
      await context.close();
      made++;
    }
  }
  return made;
}

mkdirSync(OUT, { recursive: true });
const { demo, stop } = await startDemo();
let browser: Browser | undefined;
try {
  const jobId = await makeData(demo);
  browser = await launchBrowser((m) => say(m));
  const made = await shoot(browser, await signedInContext(browser, demo), demo, jobId);
  say(`${made} screenshots in docs/screenshots/`);
} finally {
  await browser?.close();
  await stop();
}
