// `npm start` as a user runs it (in its own folder, on free non-default ports, against this run's
// MongoDB, with no setting added): the sample commands' completion email, free-key email and signed
// webhook arrive in the local inbox with links on the ports chosen; a second launcher is refused
// without touching the first; a service killed with SIGKILL is reported and restarted on its port.
// (Giving up after repeated failures: watch.test.ts.)
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { isAlive, until } from '@dv/test-kit';
import { readEntries } from '../inbox/store.ts';
import { freePort } from '@dv/stack';
import { REPO_ROOT } from '@dv/stack';

const START = join(import.meta.dirname, 'start.ts');
const dir = mkdtempSync(join(REPO_ROOT, '.local', 'launcher-test-'));
const launchers: ChildProcess[] = [];

interface Launch {
  child: ChildProcess;
  out: () => string;
  /** Resolves once stdout+stderr match, rejects after `timeoutMs` quoting the output. */
  waitFor: (re: RegExp, timeoutMs: number) => Promise<void>;
  exited: Promise<number | null>;
}

function launch(env: NodeJS.ProcessEnv): Launch {
  const child = spawn(process.execPath, [START], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  launchers.push(child);
  let out = '';
  const waiters: { re: RegExp; resolve: () => void }[] = [];
  const onData = (d: Buffer) => {
    out += d.toString();
    for (const w of waiters) if (w.re.test(out)) w.resolve();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const waitFor = (re: RegExp, timeoutMs: number) =>
    new Promise<void>((resolve, reject) => {
      if (re.test(out)) return resolve();
      const timer = setTimeout(() => reject(new Error(`no ${re} within ${timeoutMs} ms; launcher said:\n${out}`)), timeoutMs);
      waiters.push({ re, resolve: () => (clearTimeout(timer), resolve()) });
      void exited.then((code) => {
        if (!re.test(out)) reject(new Error(`launcher exited (${code}) without ${re}; it said:\n${out}`));
      });
    });
  return { child, out: () => out, waitFor, exited };
}

afterAll(async () => {
  for (const c of launchers) if (c.exitCode === null && c.signalCode === null) c.kill('SIGTERM');
  await Promise.all(launchers.map((c) => (c.exitCode === null && c.signalCode === null ? new Promise((r) => c.once('exit', r)) : undefined)));
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

const ADMIN = join(import.meta.dirname, 'admin.ts');
let env: NodeJS.ProcessEnv;
let first: Launch;

beforeAll(async () => {
  const stack = inject('stack');
  // Only what a user's shell would have: none of the variables the launcher wires itself.
  const { SMTP_RELAY_URL: _relay, WEBHOOK_ALLOW_HTTP_LOOPBACK: _loopback, PUBLIC_BASE_URL: _base, ...userEnv } = process.env;
  env = {
    ...userEnv,
      DV_LOCAL_DIR: dir,
      MONGODB_URL: stack.MONGODB_URL,
      MONGODB_DB: `launcher_${process.pid}`,
      LOG_LEVEL: 'warn',
      GATEWAY_PORT: String(await freePort()),
      LOOKUP_PORT: String(await freePort()),
      PORTFOLIO_SCANNER_PORT: String(await freePort()),
      SCHEDULER_PORT: String(await freePort()),
    PROBE_NODE_PORT: String(await freePort()),
  };
  first = launch(env);
  // The banner's last line: everything above it (keys, sample commands) has been printed.
  await first.waitFor(/Ctrl-C stops everything\./, 120_000);
}, 150_000);

interface DemoJson {
  gateway: string;
  console: string;
  console_signin: string;
  lookup: string;
  keys: { sandbox: string };
  inbox: { webhook_url: string };
}

describe('npm start: every push channel works with no setting, links point home', () => {
  it('delivers the completion email, the free-key email and a signed webhook to the local inbox', { timeout: 120_000 }, async () => {
    const demo = JSON.parse(readFileSync(join(dir, 'demo.json'), 'utf8')) as DemoJson;
    const gateway = `http://127.0.0.1:${env.GATEWAY_PORT}`;
    const lookup = `http://127.0.0.1:${env.LOOKUP_PORT}`;
    expect(demo.gateway).toBe(gateway);
    expect(first.out()).toMatch(/Demo account acc_\w+ \(demo@example\.com, Business plan, 10,000 credits\)/);

    // The sample commands the banner prints.
    const job = await fetch(`${gateway}/v1/jobs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${demo.keys.sandbox}`, 'content-type': 'application/json' },
      body: JSON.stringify({ emails: ['jane.doe@example.com', 'info@example.org'], notify_email: true, webhook_url: demo.inbox.webhook_url }),
    });
    expect(job.status).toBe(202);
    const jobId = ((await job.json()) as { job_id: string }).job_id;
    const keyRequest = await fetch(`${lookup}/v1/keys/request`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'you@example.com' }) });
    expect(keyRequest.status).toBe(202);

    const inboxDir = join(dir, 'inbox');
    const delivery = await until(() => readEntries(inboxDir, 'webhook').find((d) => d.job_id === jobId), 60_000, 'the job.completed webhook');
    expect(delivery).toMatchObject({ signature: 'valid', answered: 204, event_type: 'job.completed' });
    const mails = await until(() => {
      const all = readEntries(inboxDir, 'mail');
      const completion = all.find((m) => m.subject.startsWith('Verification finished'));
      const freeKey = all.find((m) => m.rcpt_to.includes('you@example.com'));
      return completion && freeKey ? { completion, freeKey } : null;
    }, 60_000, 'the completion and free-key emails');

    // Every link leads back to the service that made it, on the port it was given.
    const csv = mails.completion.links.find((l) => l.includes('/v1/downloads/'));
    expect(csv).toMatch(new RegExp(`^${gateway}/v1/downloads/${jobId}\\.csv\\?exp=\\d+&sig=[0-9a-f]+$`));
    expect((await fetch(csv!)).status).toBe(200);
    const verify = mails.freeKey.links.find((l) => l.includes('/v1/keys/verify'));
    expect(verify).toMatch(new RegExp(`^${lookup}/v1/keys/verify\\?token=`));
    // Opening the link spends nothing (mail link scanners open it first); its button's POST issues.
    const page = await fetch(verify!);
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/<form method="post"/);
    const issued = await fetch(verify!, { method: 'POST', headers: { accept: 'application/json' } });
    expect(issued.status).toBe(200);
    expect(((await issued.json()) as { api_key: string }).api_key).toMatch(/^dk_free_/);
    const index = (await (await fetch(`${lookup}/`)).json()) as { limits: string; openapi: string };
    expect([index.limits, index.openapi]).toEqual([`${lookup}/v1/meta/limits`, `${lookup}/openapi.json`]);
    const limits = (await (await fetch(`${lookup}/v1/meta/limits`)).json()) as { tiers: { free: { get_one: string } } };
    expect(limits.tiers.free.get_one).toContain(`POST ${lookup}/v1/keys/request`);
    const portfolio = `http://127.0.0.1:${env.PORTFOLIO_SCANNER_PORT}`;
    for (const [base, doc] of [[lookup, '/openapi.json'], [gateway, '/v1/openapi.json'], [portfolio, '/api/v1/openapi.json']] as const) {
      expect(((await (await fetch(`${base}${doc}`)).json()) as { servers: { url: string }[] }).servers).toEqual([{ url: base }]);
    }

    // `npm run admin -- inbox` shows all three.
    const admin = spawn(process.execPath, [ADMIN, 'inbox'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    let listing = '';
    admin.stdout!.on('data', (d: Buffer) => (listing += d.toString()));
    expect(await new Promise((r) => admin.once('exit', r))).toBe(0);
    expect(listing).toContain('"Verification finished');
    expect(listing).toContain(verify);
    expect(listing).toMatch(new RegExp(`/hooks/acc_\\w+ {2}job\\.completed evt_\\w+ job ${jobId} {2}signature valid`));
  });
});

/** Uses a console sign-in link as a browser does (its page, then its button); returns the answer. */
async function useSignInLink(link: string): Promise<{ status: number; location: string | null; cookie: string }> {
  const page = await fetch(link);
  expect(page.status).toBe(200);
  const text = await page.text();
  expect(text).toContain('<h1>Sign in as demo@example.com</h1>');
  const jar = page.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  const origin = new URL(link).origin;
  const field = (name: string) => new RegExp(`name="${name}" value="([^"]+)"`).exec(text)?.[1] ?? '';
  const used = await fetch(`${origin}/app/sign-in/link`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: jar, origin, 'sec-fetch-site': 'same-origin', 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: field('_csrf'), token: field('token') }).toString(),
  });
  const cookie = [jar, ...used.headers.getSetCookie().map((c) => c.split(';')[0])].join('; ');
  return { status: used.status, location: used.headers.get('location'), cookie };
}

describe('npm start: the console and a ready sign-in link', () => {
  it('prints and records the console and a one-time link that signs the demo owner in; admin console-link makes another', { timeout: 60_000 }, async () => {
    const demo = JSON.parse(readFileSync(join(dir, 'demo.json'), 'utf8')) as DemoJson;
    const gateway = `http://127.0.0.1:${env.GATEWAY_PORT}`;
    expect(demo.console).toBe(`${gateway}/app/`);
    expect(demo.console_signin).toMatch(new RegExp(`^${gateway}/app/sign-in/link\\?token=[\\w-]+$`));
    expect(first.out()).toContain(`Console: ${gateway}/app/`);
    expect(first.out()).toContain(`  ${demo.console_signin}\n`);

    const used = await useSignInLink(demo.console_signin);
    expect([used.status, used.location]).toEqual([303, '/app/']);
    const home = await fetch(`${gateway}/app/`, { headers: { cookie: used.cookie } });
    expect(await home.text()).toContain('<h1>Demo</h1>');
    // It works once.
    expect((await fetch(demo.console_signin)).status).toBe(410);

    const admin = spawn(process.execPath, [ADMIN, 'console-link', 'demo@example.com'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    let printed = '';
    admin.stdout!.on('data', (d: Buffer) => (printed += d.toString()));
    expect(await new Promise((r) => admin.once('exit', r))).toBe(0);
    const fresh = /^(http\S+)\n\(works once, until \d{4}-\d\d-\d\d \d\d:\d\d UTC\)\n$/.exec(printed)?.[1];
    expect(fresh).toMatch(new RegExp(`^${gateway}/app/sign-in/link\\?token=`));
    expect((await useSignInLink(fresh!)).status).toBe(303);
  });
});

describe('npm start watches its services', () => {
  it('refuses a second launch naming the first, and restarts a service killed with SIGKILL', { timeout: 150_000 }, async () => {
    const pids = JSON.parse(readFileSync(join(dir, 'stack', 'pids.json'), 'utf8')) as Record<string, number>;
    const lock = readFileSync(join(dir, 'launcher.lock'), 'utf8');
    const demoJson = readFileSync(join(dir, 'demo.json'), 'utf8');

    const second = launch(env);
    expect(await second.exited).toBe(1);
    expect(second.out()).toContain(`another launcher is already running in this checkout: pid ${first.child.pid} (npm start`);
    expect(second.out()).not.toContain('starting NATS');
    // The first launcher, its servers and its files are untouched.
    expect(first.child.exitCode).toBeNull();
    expect(isAlive(pids.nats!) && isAlive(pids.redis!)).toBe(true);
    expect((await fetch(`http://127.0.0.1:${env.GATEWAY_PORT}/healthz`)).status).toBe(200);
    expect(readFileSync(join(dir, 'launcher.lock'), 'utf8')).toBe(lock);
    expect(readFileSync(join(dir, 'demo.json'), 'utf8')).toBe(demoJson);
    expect(existsSync(join(dir, 'stack.json'))).toBe(true);

    process.kill(pids.lookup!, 'SIGKILL');
    await first.waitFor(/lookup killed by SIGKILL; restarting it in 1 s \(failure 1 of 5/, 10_000);
    await first.waitFor(/lookup is back: http:\/\/127\.0\.0\.1:\d+/, 60_000);
    expect((await fetch(`http://127.0.0.1:${env.LOOKUP_PORT}/readyz`)).status).toBe(200);
    const restartedPid = (JSON.parse(readFileSync(join(dir, 'stack', 'pids.json'), 'utf8')) as Record<string, number>).lookup!;
    expect(restartedPid).not.toBe(pids.lookup);
    expect(isAlive(restartedPid)).toBe(true);

    first.child.kill('SIGINT');
    expect(await first.exited).toBe(0);
    expect(isAlive(restartedPid)).toBe(false);
    expect(isAlive(pids.nats!)).toBe(false);
    expect(existsSync(join(dir, 'launcher.lock'))).toBe(false);
  });
});
