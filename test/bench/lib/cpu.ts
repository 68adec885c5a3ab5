// CPU seconds spent on this box by process name (utime + stime of every live process, from
// /proc/<pid>/stat), so a long benchmark can print where the CPU of each stretch went: a stage
// whose cost per unit of work grows as the run goes shows up as a rising figure.
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_S = 100; // USER_HZ on Linux

/** Sums by `comm` (the kernel's process name, e.g. `node`, `mongod.exe`, `nats-server`) or by a label from `label(pid, comm)`. */
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
    // comm is in parentheses and may hold spaces; the fields after it are space separated.
    const close = stat.lastIndexOf(')');
    const comm = stat.slice(stat.indexOf('(') + 1, close);
    const fields = stat.slice(close + 2).split(' ');
    const name = label(Number(entry), comm);
    if (name === null) continue;
    const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15 of stat)
    out.set(name, (out.get(name) ?? 0) + ticks / TICKS_PER_S);
  }
  return out;
}

/** What each name spent between two readings (names absent from `before` count from zero). */
export function cpuDelta(before: Map<string, number>, after: Map<string, number>): Map<string, number> {
  const out = new Map<string, number>();
  for (const [k, v] of after) out.set(k, v - (before.get(k) ?? 0));
  return out;
}
