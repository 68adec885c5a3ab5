// `npm start` as a user runs it (in its own folder, on free ports, against this run's MongoDB): a
// second launcher is refused without touching the first, and a service killed with SIGKILL is
// reported and restarted on its port. (Giving up after repeated failures: watch.test.ts.)
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '../stack/ports.ts';
import { REPO_ROOT } from '../stack/stack.ts';

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

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

afterAll(async () => {
  for (const c of launchers) if (c.exitCode === null && c.signalCode === null) c.kill('SIGTERM');
  await Promise.all(launchers.map((c) => (c.exitCode === null && c.signalCode === null ? new Promise((r) => c.once('exit', r)) : undefined)));
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

describe('npm start watches its services', () => {
  it('refuses a second launch naming the first, and restarts a service killed with SIGKILL', { timeout: 150_000 }, async () => {
    const stack = inject('stack');
    const env: NodeJS.ProcessEnv = {
      ...process.env,
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
    const first = launch(env);
    await first.waitFor(/Everything is up\./, 120_000);
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
