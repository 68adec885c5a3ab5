import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A child server process whose output goes to `<dataDir>/logs/<name>.log`. */
export interface Managed {
  child: ChildProcess;
  exited: Promise<number | null>;
  alive: () => boolean;
}

export interface StartProcessOptions {
  env?: NodeJS.ProcessEnv;
  /** Own process group: a terminal's Ctrl-C then reaches only the launcher, which stops servers last. */
  detached?: boolean;
  /** argv run before the command, e.g. `ip netns exec <ns>` to start it on a simulated host (../cluster). */
  wrap?: readonly string[];
}

export function startProcess(name: string, command: string, args: string[], dataDir: string, opts: StartProcessOptions = {}): Managed {
  const logDir = join(dataDir, 'logs');
  mkdirSync(logDir, { recursive: true });
  // The child writes straight to its log file: no pipe stays open in this process, so helpers the
  // server leaves behind for a moment (wineserver) cannot keep the launcher's event loop alive.
  const fd = openSync(join(logDir, `${name}.log`), 'a');
  const [file, ...argv] = [...(opts.wrap ?? []), command, ...args];
  const child = spawn(file!, argv, { env: opts.env ?? process.env, stdio: ['ignore', fd, fd], detached: opts.detached ?? false });
  closeSync(fd);
  let alive = true;
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => {
      alive = false;
      resolve(code);
    });
    child.once('error', () => {
      alive = false;
      resolve(null);
    });
  });
  recordPid(dataDir, name, child.pid);
  return { child, exited, alive: () => alive };
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves when the process is gone. */
export async function stopProcess(m: Managed, graceMs = 5_000): Promise<void> {
  if (!m.alive()) return;
  m.child.kill('SIGTERM');
  const timer = setTimeout(() => m.child.kill('SIGKILL'), graceMs);
  await m.exited;
  clearTimeout(timer);
}

// Pids of the servers a launcher started, so the next launch on the same data folder can end any
// that outlived a launcher killed with SIGKILL (which gives no chance to clean up).
function pidFile(dataDir: string): string {
  return join(dataDir, 'pids.json');
}

export function recordPid(dataDir: string, name: string, pid: number | undefined): void {
  if (pid === undefined) return;
  const file = pidFile(dataDir);
  const pids = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, number>) : {};
  pids[name] = pid;
  writeFileSync(file, JSON.stringify(pids));
}

export function killLeftovers(dataDir: string): string[] {
  const file = pidFile(dataDir);
  if (!existsSync(file)) return [];
  const killed: string[] = [];
  const pids = JSON.parse(readFileSync(file, 'utf8')) as Record<string, number>;
  for (const [name, pid] of Object.entries(pids)) {
    const cmdline = readCmdline(pid);
    if (cmdline && /nats-server|redis-server|mongod|\/src\/main\.ts/.test(cmdline)) {
      try {
        process.kill(pid, 'SIGKILL');
        killed.push(`${name} (pid ${pid})`);
      } catch {
        // already gone
      }
    }
  }
  writeFileSync(file, '{}');
  return killed;
}

function readCmdline(pid: number): string | null {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return null;
  }
}
