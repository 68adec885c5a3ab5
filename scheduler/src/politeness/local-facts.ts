// Decisions about a (provider, source IP) that Redis could not take: a throttle pause, a policy
// block, a learned limit. Redis is where every replica reads them, but a Redis error right after
// a session must not undo what the session taught: the items would be re-probed at once from
// the same IP (a throttled provider hit again, a blocking one asked again). So this replica keeps
// the fact itself, honours it at its own gate, and writes it to Redis again every `retryMs` until
// Redis takes it (with the time left) or it ends (docs/scheduler.md "Redis errors").

export type LocalGate = { reason: 'blocked' | 'paused'; waitMs: number };

interface Held {
  untilMs: number;
  /** Gate it closes at this replica (none for a learned limit, which the memo holds). */
  gate: LocalGate['reason'] | null;
  /** Writes the fact to Redis for the time left. */
  write: (msLeft: number) => Promise<unknown>;
  written: boolean;
}

/** Facts kept at most; the oldest go first (each also ends by itself). */
const MAX_FACTS = 10_000;

export class LocalFacts {
  private readonly facts = new Map<string, Held>();
  private readonly retryMs: number;
  private timer: NodeJS.Timeout | null = null;

  constructor(opts: { retryMs: number }) {
    this.retryMs = opts.retryMs;
  }

  private static key(kind: string, provider: string, ipKey: string): string {
    return `${kind}|${provider}|${ipKey}`;
  }

  /**
   * Keeps a fact Redis refused for `ms` and retries writing it. `gate` says whether it closes the
   * (provider, IP) gate here meanwhile.
   */
  hold(kind: string, provider: string, ipKey: string, ms: number, gate: LocalGate['reason'] | null, write: (msLeft: number) => Promise<unknown>): void {
    if (this.facts.size >= MAX_FACTS) this.facts.delete(this.facts.keys().next().value!);
    const key = LocalFacts.key(kind, provider, ipKey);
    const untilMs = Math.max(Date.now() + ms, this.facts.get(key)?.untilMs ?? 0);
    this.facts.set(key, { untilMs, gate, write, written: false });
    this.timer ??= setInterval(() => void this.flush(), this.retryMs);
    this.timer.unref();
  }

  /** The longest local pause or block of this (provider, IP), null when none. */
  gate(provider: string, ipKey: string, nowMs: number = Date.now()): LocalGate | null {
    let best: LocalGate | null = null;
    for (const reason of ['blocked', 'paused'] as const) {
      const f = this.facts.get(LocalFacts.key(reason === 'blocked' ? 'block' : 'pause', provider, ipKey));
      if (f && f.untilMs > nowMs && (!best || f.untilMs - nowMs > best.waitMs)) best = { reason, waitMs: f.untilMs - nowMs };
    }
    return best;
  }

  /** Facts not yet written to Redis (for tests and logs). */
  get pending(): number {
    let n = 0;
    for (const f of this.facts.values()) if (!f.written) n++;
    return n;
  }

  /** One retry round: every unwritten fact still running is written with its time left. */
  async flush(nowMs: number = Date.now()): Promise<void> {
    for (const [key, f] of this.facts) {
      const left = f.untilMs - nowMs;
      if (left <= 0) {
        this.facts.delete(key);
        continue;
      }
      if (f.written) continue;
      try {
        await f.write(left);
        f.written = true;
      } catch {
        // Redis still down: the next round tries again.
      }
    }
    if (this.facts.size === 0) this.stop();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
