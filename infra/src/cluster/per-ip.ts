// What an MX host saw per client address: the politeness limits are per (provider, source IP), so a
// violation is a session opened while the same source address already had `limit` open to the host.
export interface SessionSpan {
  clientIp: string;
  startedAtMs: number;
  /** Absent: still open. */
  endedAtMs?: number;
}

export interface PerIpFigures {
  sessions: number;
  maxConcurrent: number;
  violations: number;
}

export function perIpFigures(sessions: readonly SessionSpan[], limit: number): Record<string, PerIpFigures> {
  // Opens and closes in time order; at equal times a close comes first (the slot was free again).
  const events: { t: number; ip: string; open: boolean }[] = [];
  for (const s of sessions) {
    events.push({ t: s.startedAtMs, ip: s.clientIp, open: true });
    if (s.endedAtMs !== undefined) events.push({ t: s.endedAtMs, ip: s.clientIp, open: false });
  }
  events.sort((a, b) => a.t - b.t || Number(a.open) - Number(b.open));
  const out: Record<string, PerIpFigures> = {};
  const open = new Map<string, number>();
  for (const e of events) {
    const fig = (out[e.ip] ??= { sessions: 0, maxConcurrent: 0, violations: 0 });
    const now = open.get(e.ip) ?? 0;
    if (e.open) {
      if (now >= limit) fig.violations += 1;
      fig.sessions += 1;
      open.set(e.ip, now + 1);
      fig.maxConcurrent = Math.max(fig.maxConcurrent, now + 1);
    } else {
      open.set(e.ip, now - 1);
    }
  }
  return out;
}
