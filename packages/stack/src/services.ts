import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { natsUserEnv } from './nats-auth.ts';
import { recordPid } from './process.ts';
import { REPO_ROOT } from './stack.ts';

export const SERVICE_NAMES = ['gateway', 'lookup', 'portfolio-scanner', 'scheduler', 'probe-node'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

/** Default ports (the README's local stack table); `npm start` honours GATEWAY_PORT, LOOKUP_PORT, … to move them. */
export const DEFAULT_PORTS: Readonly<Record<ServiceName, number>> = {
  gateway: 8080,
  lookup: 8081,
  'portfolio-scanner': 8082,
  scheduler: 9464,
  'probe-node': 9465,
};

/**
 * V8 memory settings each service runs with (what a deployment puts in NODE_OPTIONS; a user's own
 * NODE_OPTIONS come after and win). The scheduler and probe nodes hold thousands of short-lived
 * items; with V8's defaults (heap limit sized from the host's RAM, 4.5 GB on 24 GB) garbage is
 * collected lazily and RSS sits near 500 MB although the live set is ~50-70 MB. A 256 MB old space
 * with a 16 MB young generation keeps them near 230 MB RSS at the same throughput
 * (docs/scheduler.md, "Memory"); the young generation is set too because capping the old space
 * alone shrinks it and makes the collector thrash.
 */
export const SERVICE_NODE_OPTIONS: Readonly<Record<ServiceName, string>> = {
  // The HTTP services the same (`npm run bench -- rss`, docs/operations.md "Capacity"): two 25,000-
  // address lists and the verify load took the gateway to 376 MB RSS with V8's defaults, 227 MB
  // with these; lookup 176 / 180 MB (no gain at this load; bounded alike so a heavier one cannot
  // grow it the gateway's way).
  gateway: '--max-semi-space-size=16 --max-old-space-size=256',
  lookup: '--max-semi-space-size=16 --max-old-space-size=256',
  // Scan workers hold up to 3 x PORTFOLIO_SCAN_CONCURRENCY messages, answers and caches of 100,000
  // zones: with a 256 MB old space they peaked at 312 MB RSS in the 100,000-domain benchmark at 64
  // scans, with 224 MB at 300 MB (docs/portfolio-scanner.md, "Benchmark").
  'portfolio-scanner': '--max-semi-space-size=16 --max-old-space-size=224',
  scheduler: '--max-semi-space-size=16 --max-old-space-size=256',
  'probe-node': '--max-semi-space-size=16 --max-old-space-size=256',
};

/**
 * The portfolio API role (PORTFOLIO_ROLE=api) holds no scan state, and its small calls need the
 * room: with the workers' 224 MB (or 512) old space, once it had served list pages of 5,000
 * domains an authenticated call cost 85-99 µs of CPU instead of 41-50 in 10 of 11 benchmark runs
 * (`npm run bench -- portfolio-api`): V8 sizes its heap growth from the old-space limit, and a tight
 * one kept it collecting (a megabyte promoted per scavenge, a full collection every half second).
 * With 768 MB the same runs stayed at 45-50 µs; the process peaked at 284-295 MB RSS at 100,000 domains.
 */
export const PORTFOLIO_API_NODE_OPTIONS = '--max-semi-space-size=16 --max-old-space-size=768';

/** The V8 options a service's process runs with: SERVICE_NODE_OPTIONS, but the portfolio API role's own. */
export function serviceNodeOptions(name: ServiceName, env: Readonly<Record<string, string | undefined>>): string {
  return name === 'portfolio-scanner' && env.PORTFOLIO_ROLE === 'api' ? PORTFOLIO_API_NODE_OPTIONS : SERVICE_NODE_OPTIONS[name];
}

/**
 * Keys the services of one stack must share, made once per data folder (mode 600) so what they
 * sign survives a restart of `npm start`, and passed as <NAME>_FILE (the value never appears in the
 * environment or stack.json). A key the user set (NAME or NAME_FILE) wins.
 */
export const STACK_SECRETS = [
  // Links in job views and completion emails: the gateway and the scheduler must agree.
  { name: 'DOWNLOAD_SIGNING_SECRET', file: 'download-signing-secret' },
  // Export file links of the portfolio API: every replica must agree (without it each process warns
  // at start and signs with a key of its own).
  { name: 'PORTFOLIO_EXPORT_SIGNING_SECRET', file: 'portfolio-export-signing-secret' },
] as const;

export function stackSecretsEnv(dataDir: string, userEnv: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {};
  for (const { name, file: fileName } of STACK_SECRETS) {
    if (userEnv[name] || userEnv[`${name}_FILE`]) continue;
    const file = join(dataDir, fileName);
    if (!existsSync(file)) {
      mkdirSync(dataDir, { recursive: true });
      // 'wx': two launchers racing on one folder keep the first key instead of overwriting it.
      try {
        writeFileSync(file, `${randomBytes(48).toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
    }
    env[`${name}_FILE`] = file;
  }
  return env;
}

export interface RunningProcess {
  name: ServiceName;
  child: ChildProcess;
  url: string;
  exited: Promise<number | null>;
  /** SIGTERM and wait; resolves with the exit code (SIGKILL after `graceMs`). */
  stop(graceMs?: number): Promise<number | null>;
}

export interface StartServiceOptions {
  env: Record<string, string>;
  logDir: string;
  port?: number;
  /** Wait for /readyz 200 before resolving (default true). */
  waitReady?: boolean;
  readyTimeoutMs?: number;
  /** Called with each log line (already written to the log file). */
  onLine?: (line: string) => void;
  /** Own process group (npm start), with its pid recorded in this folder for leftover clean-up. */
  detachedPidDir?: string;
  /** argv run before node, e.g. `ip netns exec <ns>` to run the service on a simulated host (./cluster). */
  wrap?: readonly string[];
}

/**
 * Runs `<service>/src/main.ts` under this Node (24) as a child process, logs to
 * `<logDir>/<service>.log`, learns its URL from the "listening" log line (so PORT=0 works) and
 * waits until /readyz answers 200.
 */
export async function startServiceProcess(name: ServiceName, opts: StartServiceOptions): Promise<RunningProcess> {
  mkdirSync(opts.logDir, { recursive: true });
  const log = createWriteStream(join(opts.logDir, `${name}.log`), { flags: 'a' });
  const env: NodeJS.ProcessEnv = { ...process.env, ...opts.env, PORT: String(opts.port ?? 0), HOST: opts.env.HOST ?? '127.0.0.1' };
  // No load balancer polls readiness here (launcher, tests): close the listener at once on SIGTERM.
  env.SHUTDOWN_DELAY_MS ??= '0';
  // On a local stack every service connects to the bus as its own user, as in production, unless the caller chose one.
  if (env.NATS_USERS_DIR && !env.NATS_USER && !env.NATS_PASSWORD_FILE) Object.assign(env, natsUserEnv(env.NATS_USERS_DIR, name));
  const nodeOptions = [serviceNodeOptions(name, env), env.NODE_OPTIONS ?? ''].filter(Boolean).join(' ');
  if (nodeOptions) env.NODE_OPTIONS = nodeOptions;
  const [file, ...argv] = [...(opts.wrap ?? []), process.execPath, join(REPO_ROOT, name, 'src', 'main.ts')];
  const child = spawn(file!, argv, { env, stdio: ['ignore', 'pipe', 'pipe'], cwd: REPO_ROOT, detached: opts.detachedPidDir !== undefined });
  if (opts.detachedPidDir) recordPid(opts.detachedPidDir, name, child.pid);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code, signal) => resolve(code ?? (signal ? 128 : null))));
  // The last output lines (stdout JSON logs and stderr), quoted when the process dies before listening.
  let outputTail = '';
  child.stderr?.on('data', (d: Buffer) => {
    outputTail = (outputTail + d.toString()).slice(-4_000);
    log.write(d);
  });
  const startTimeoutMs = opts.readyTimeoutMs ?? 60_000;
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${name} did not announce its address within ${startTimeoutMs} ms:\n${outputTail.trim()}`));
    }, startTimeoutMs);
    const rl = createInterface({ input: child.stdout! });
    rl.on('line', (line) => {
      log.write(`${line}\n`);
      outputTail = (outputTail + line + '\n').slice(-4_000);
      opts.onLine?.(line);
      if (line.includes('listening')) {
        try {
          const parsed = JSON.parse(line) as { url?: string };
          if (parsed.url) {
            clearTimeout(timer);
            resolve(parsed.url);
          }
        } catch {
          // not JSON: ignore
        }
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with code ${code} before listening:\n${outputTail.trim()}`));
    });
  });
  const stop = async (graceMs = 12_000): Promise<number | null> => {
    if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    const code = await exited;
    clearTimeout(timer);
    log.end();
    return code;
  };
  const proc: RunningProcess = { name, child, url, exited, stop };
  if (opts.waitReady !== false) {
    try {
      await waitReady(url, opts.readyTimeoutMs ?? 30_000);
    } catch (err) {
      await stop();
      throw err;
    }
  }
  return proc;
}

export async function waitReady(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2_000) });
      if (res.status === 200) return;
      last = `${res.status} ${await res.text()}`;
    } catch (err) {
      last = (err as Error).message;
    }
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`${url}/readyz not 200 after ${timeoutMs} ms (last: ${last})`);
}
