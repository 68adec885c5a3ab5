// One launcher per checkout: `npm start` and `npm run demo` share `.local` (stack data, pid files,
// demo.json), and a second launcher would end the first one's servers as "leftovers" and start
// services on ports already taken. The lock names the launcher that holds it; a lock whose process
// is gone (a launcher killed with SIGKILL) is stale and taken over, so the leftover clean-up still runs.
import { linkSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface LockHolder {
  pid: number;
  /** Kernel start time of the process (/proc/<pid>/stat field 22), so a reused pid is not taken for the launcher. */
  startTicks: string | null;
  startedAt: string;
  command: string;
}

export type LockResult = { ok: true; release: () => void } | { ok: false; holder: LockHolder; file: string };

export function lockFile(localDir: string): string {
  return join(localDir, 'launcher.lock');
}

/** Takes the checkout's launcher lock, or says who holds it. */
export function acquireLauncherLock(localDir: string, command: string): LockResult {
  const file = lockFile(localDir);
  const me: LockHolder = { pid: process.pid, startTicks: processStartTicks(process.pid), startedAt: new Date().toISOString(), command };
  // Written whole under a private name, then linked into place: the link fails if a lock exists, and
  // a reader never sees a half-written one. A few rounds: two launchers racing over one stale lock
  // both remove it, and only one link succeeds.
  const mine = `${file}.${process.pid}`;
  writeFileSync(mine, `${JSON.stringify(me)}\n`);
  try {
    for (let round = 0; round < 3; round++) {
      try {
        linkSync(mine, file);
        return { ok: true, release: () => releaseIfMine(file) };
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const holder = readHolder(file);
      if (holder && isAlive(holder)) return { ok: false, holder, file };
      rmSync(file, { force: true });
    }
  } finally {
    rmSync(mine, { force: true });
  }
  const holder = readHolder(file);
  if (holder) return { ok: false, holder, file };
  throw new Error(`could not take the launcher lock ${file}`);
}

/** The refusal a second launcher prints. */
export function refusalMessage(holder: LockHolder, file: string): string {
  return [
    `another launcher is already running in this checkout: pid ${holder.pid} (${holder.command}, started ${holder.startedAt}).`,
    `Its services, keys and URLs are in .local/demo.json; stop it with Ctrl-C in its terminal (or kill ${holder.pid}) before starting again.`,
    `Nothing was started or stopped. (Lock: ${file})`,
  ].join('\n');
}

function releaseIfMine(file: string): void {
  if (readHolder(file)?.pid === process.pid) rmSync(file, { force: true });
}

function readHolder(file: string): LockHolder | null {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<LockHolder>;
    if (typeof parsed.pid !== 'number') return null;
    return { pid: parsed.pid, startTicks: parsed.startTicks ?? null, startedAt: String(parsed.startedAt ?? '?'), command: String(parsed.command ?? '?') };
  } catch {
    // missing (released meanwhile) or half-written: treated as no holder
    return null;
  }
}

function isAlive(holder: LockHolder): boolean {
  try {
    process.kill(holder.pid, 0);
  } catch (err) {
    // EPERM: the pid exists (another user's); its start time below decides.
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  // Where /proc is readable, a pid reused by another process since has another start time.
  const ticks = processStartTicks(holder.pid);
  return holder.startTicks === null || ticks === null || ticks === holder.startTicks;
}

function processStartTicks(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 2 (comm) may contain spaces and parentheses: count fields after its closing ')'.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return rest[19] ?? null; // field 22 overall; rest starts at field 3
  } catch {
    return null;
  }
}
