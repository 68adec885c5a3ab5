// CPU seconds of processes on this box, from /proc/<pid>/stat (utime + stime): one process's
// (`cpuTimes`, for a bench's CPU per request), or every live process's by name
// (`cpuSecondsByName`), so a long benchmark can print where the CPU of each stretch went: a stage
// whose cost per unit of work grows as the run goes shows up as a rising figure.
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_S = 100; // USER_HZ on Linux

/** comm (the kernel's process name, in parentheses, may hold spaces) and CPU seconds of one stat line. */
function parseStat(stat: string): { comm: string; seconds: number; user: number; system: number } {
  const close = stat.lastIndexOf(')');
  const fields = stat.slice(close + 2).split(' ');
  // utime and stime: fields 14 and 15 of stat, 11 and 12 after comm
  const user = Number(fields[11]) / TICKS_PER_S;
  const system = Number(fields[12]) / TICKS_PER_S;
  return { comm: stat.slice(stat.indexOf('(') + 1, close), seconds: user + system, user, system };
}

/** A process's CPU seconds so far in user and kernel mode (zeros when unreadable). */
export function cpuTimes(pid: number | undefined): { user: number; system: number } {
  try {
    const { user, system } = parseStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
    return { user, system };
  } catch {
    return { user: 0, system: 0 };
  }
}

/** Sums by `comm` (e.g. `node`, `nats-server`) or by a label from `label(pid, comm)`; null leaves a process out. */
export function cpuSecondsByName(label: (pid: number, comm: string) => string | null = (_p, c) => c): Map<string, number> {
  const out = new Map<string, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // gone between the listing and the read
    }
    const { comm, seconds } = parseStat(stat);
    const name = label(Number(entry), comm);
    if (name !== null) out.set(name, (out.get(name) ?? 0) + seconds);
  }
  return out;
}

/** What each name spent between two readings (names absent from `before` count from zero). */
export function cpuDelta(before: Map<string, number>, after: Map<string, number>): Map<string, number> {
  const out = new Map<string, number>();
  for (const [k, v] of after) out.set(k, v - (before.get(k) ?? 0));
  return out;
}
