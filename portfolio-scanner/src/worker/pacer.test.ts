// The rescan pacer against a scripted clock and budgets (a pure unit): a rescan whose operator has
// no room waits while later ones of idle operators start; running scans count against their
// operator; unknown operators and rescans deferred too long start in arrival order. Then against
// the real BudgetScheduler: a small host's window takes one rescan at a replica's share, not two.
import { describe, expect, it } from 'vitest';
import { BudgetScheduler } from '../politeness/scheduler.ts';
import { RescanPacer, type PacedOperator } from './pacer.ts';

const small = (key: string): PacedOperator => ({ key, qps: 50 });

/** Room: each operator's free places now (queries beyond them wait `waitMs`); `limits` its window. */
function scripted(free: Record<string, number>, limits: Record<string, number> = {}, waitMs = 400) {
  let now = 0;
  const asked: [string, number][] = [];
  const pacer = new RescanPacer<string>({
    queriesPerScan: 10,
    maxDeferMs: 2_000,
    nowMs: () => now,
    room: (op, queries) => {
      asked.push([op.key, queries]);
      return { waitMs: queries <= (free[op.key] ?? Infinity) ? 0 : waitMs, fits: queries <= (limits[op.key] ?? Infinity) };
    },
  });
  const started = (): (string | number)[] => {
    const out: (string | number)[] = [];
    for (;;) {
      const n = pacer.next();
      if (n === null) return out;
      if ('retryInMs' in n) return [...out, n.retryInMs];
      out.push(n.item);
    }
  };
  return { pacer, started, asked, advance: (ms: number) => (now += ms) };
}

describe('RescanPacer', () => {
  it('starts the oldest rescan whose operator has room; one without waits while later ones start', () => {
    const { pacer, started } = scripted({ busy: 5, idle: 100 });
    pacer.push('busy-1', small('busy'));
    pacer.push('idle-1', small('idle'));
    pacer.push('unknown-1', null);
    pacer.push('busy-2', small('busy'));
    // busy-1 needs 10 of busy's 5 free places: it (and busy-2 behind it) wait; the next look in 400 ms.
    expect(started()).toEqual(['idle-1', 'unknown-1', 400]);
    expect(pacer.size).toBe(2);
  });

  it('counts running scans against their operator until done, then lets the next one start', () => {
    const { pacer, started, asked } = scripted({ host: 15 }, { host: 23 });
    pacer.push('a', small('host'));
    pacer.push('b', small('host'));
    // a takes 10 of 15; b would need 20 beside it (a window of 23 fits both, but 15 are free now).
    expect(started()).toEqual(['a', 400]);
    expect(asked.at(-1)).toEqual(['host', 20]);
    pacer.done(small('host'));
    expect(started()).toEqual(['b']);
  });

  it('a window too small for two scans: the second waits for the first to end, not for the budget (no timer before its deferral ends)', () => {
    const { pacer, started } = scripted({ host: 100 }, { host: 12 });
    pacer.push('a', small('host'));
    pacer.push('b', small('host'));
    expect(started()).toEqual(['a', 2_000]);
    pacer.done(small('host'));
    expect(started()).toEqual(['b']);
  });

  it('a rescan deferred for maxDeferMs starts anyway (it then waits at its budget)', () => {
    const { pacer, started, advance } = scripted({ host: 0 }, {}, 10_000);
    pacer.push('a', small('host'));
    advance(500);
    pacer.push('b', small('host'));
    // Next look: when a's deferral ends (1,500 ms), not when the budget says (10 s).
    expect(started()).toEqual([1_500]);
    advance(1_500);
    expect(started()).toEqual(['a', 500]);
    advance(500);
    expect(started()).toEqual(['b']);
  });

  it('drain gives back every held rescan', () => {
    const { pacer } = scripted({ host: 0 });
    pacer.push('a', small('host'));
    pacer.push('b', null);
    expect(pacer.drain()).toEqual(['a', 'b']);
    expect(pacer.size).toBe(0);
    expect(pacer.next()).toBeNull();
  });

  it('with the real budgets: a small host at half its 50/s takes one 14-question rescan a window, a listed operator many', () => {
    let now = 0;
    const scheduler = new BudgetScheduler({ workerQps: 100_000, resolverQps: [100_000], maxWaitMs: 10_000, windowMarginMs: 25, nowMs: () => now });
    scheduler.setShare(2);
    const pacer = new RescanPacer<string>({ queriesPerScan: 14, maxDeferMs: 5_000, nowMs: () => now, room: (op, q) => scheduler.roomFor(op, q) });
    const host = small('tinyhost.test');
    const cloudflare: PacedOperator = { key: 'Cloudflare', qps: 2_000 };
    for (const d of ['h1', 'h2', 'c1', 'c2', 'c3']) pacer.push(d, d.startsWith('h') ? host : cloudflare);
    const first = pacer.next();
    expect(first && 'item' in first && first.item).toBe('h1');
    // h1's scan sends its 14 questions (granted, then answered).
    for (let i = 0; i < 14; i++) {
      const g = scheduler.tryAcquire(host);
      expect(g?.ok).toBe(true);
      if (g) scheduler.settle(g);
    }
    pacer.done(host);
    const next: string[] = [];
    for (let n = pacer.next(); n && 'item' in n; n = pacer.next()) next.push(n.item);
    expect(next).toEqual(['c1', 'c2', 'c3']);
    // h2 waits until h1's questions leave the window (1,000 ms + the 25 ms margin).
    const wait = pacer.next();
    expect(wait && 'retryInMs' in wait && wait.retryInMs).toBe(1_025);
    now += 1_025;
    const h2 = pacer.next();
    expect(h2 && 'item' in h2 && h2.item).toBe('h2');
  });
});
