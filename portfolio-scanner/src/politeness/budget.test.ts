// The sliding-window budget alone (pure: the test passes the time).
import { describe, expect, it } from 'vitest';
import { rng } from '@dv/test-kit';
import { Budget } from './budget.ts';

/** Grants as early as the budget allows, for `n` callers all asking at `from`: their times. */
function drain(b: Budget, n: number, from: number): number[] {
  const times: number[] = [];
  let now = from;
  for (let i = 0; i < n; i++) {
    now = Math.max(now, b.readyAt(now));
    expect(b.canGrant(now)).toBe(true);
    b.take();
    b.settle(now); // answered at once
    times.push(now);
  }
  return times;
}

/** The most grants any window of `windowMs` (half-open) holds. */
function maxInWindow(times: number[], windowMs: number): number {
  let best = 0;
  for (let i = 0, j = 0; j < times.length; j++) {
    while ((times[j] as number) - (times[i] as number) >= windowMs) i++;
    best = Math.max(best, j - i + 1);
  }
  return best;
}

describe('politeness: the sliding-window budget', () => {
  it('grants floor(qps) at once, then the next ones as the window frees; no second ever holds more', () => {
    const b = new Budget(25, 50);
    const times = drain(b, 60, 0);
    expect(times.slice(0, 25).every((t) => t === 0)).toBe(true);
    expect(times.slice(25, 50).every((t) => t === 1050)).toBe(true);
    expect(times.slice(50)).toEqual(Array(10).fill(2100));
    expect(maxInWindow(times, 1000)).toBe(25);
    expect(b.canGrant(2100)).toBe(true); // 10 of the 25 places in the last window are taken
    expect(new Budget(16.7).readyAt(0)).toBe(0);
    expect(drain(new Budget(16.7), 17, 0).at(-1)).toBe(1000); // floor: 16 a second
  });

  it('keeps the bound whatever the pattern of asking, and readyAtAfter foretells the queue', () => {
    const random = rng(7);
    for (const qps of [1, 3, 20, 50, 333.3]) {
      const b = new Budget(qps, 10);
      const times: number[] = [];
      let now = 0;
      for (let i = 0; i < 2_000; i++) {
        now += random() < 0.7 ? 0 : random() * 200;
        if (b.canGrant(now)) {
          b.take();
          b.settle(now);
          times.push(now);
        }
      }
      expect(maxInWindow(times, 1000)).toBeLessThanOrEqual(Math.floor(qps));
      // The time the k-th waiter from now would be granted, against granting them one by one.
      for (const ahead of [0, 1, Math.floor(qps) - 1, Math.floor(qps), 3 * Math.floor(qps) + 2]) {
        const copy = new Budget(qps, 10);
        for (const t of times) copy.record(t);
        const foretold = copy.readyAtAfter(ahead, now);
        expect(drain(copy, ahead + 1, now).at(-1)).toBeCloseTo(foretold, 6);
      }
    }
  });

  it('a query counts from its grant to its end, so however late it leaves no second at the server holds more', () => {
    const b = new Budget(10);
    for (let i = 0; i < 10; i++) b.take();
    expect(b.canGrant(0)).toBe(false);
    expect(b.readyAt(0)).toBe(1000); // a lower bound: they might all end now
    for (let i = 0; i < 10; i++) b.settle(800); // a stalled worker sent them late
    expect(b.readyAt(1000)).toBe(1800); // a window after they ended, not after they were granted

    // Random stalls between grant and send, and between arrival and answer: each query reaches the
    // server at some time between its grant and its end. No margin needed.
    const random = rng(11);
    for (const qps of [3, 25, 50]) {
      const budget = new Budget(qps);
      const inFlight: { granted: number; ends: number }[] = [];
      const arrivals: number[] = [];
      let now = 0;
      let foretold = -Infinity;
      for (let step = 0; step < 5_000; step++) {
        now += random() * 30;
        for (let i = inFlight.length - 1; i >= 0; i--) {
          const q = inFlight[i] as { granted: number; ends: number };
          if (q.ends > now) continue;
          budget.settle(q.ends);
          arrivals.push(q.granted + random() * (q.ends - q.granted));
          inFlight.splice(i, 1);
        }
        // readyAt is a lower bound while queries are in flight: no grant comes before it.
        if (budget.canGrant(now)) expect(now).toBeGreaterThanOrEqual(foretold);
        else foretold = Math.max(foretold, budget.readyAt(now));
        while (random() < 0.8 && budget.canGrant(now)) {
          foretold = -Infinity;
          budget.take();
          // Mostly answered within tens of ms; sometimes stalled for seconds.
          inFlight.push({ granted: now, ends: now + (random() < 0.05 ? random() * 3000 : random() * 60) });
        }
      }
      arrivals.sort((x, y) => x - y);
      expect(arrivals.length).toBeGreaterThan(qps * 50);
      expect(maxInWindow(arrivals, 1000)).toBeLessThanOrEqual(Math.floor(qps));
    }
  });

  it('a reserve keeps places of each window for queries charged after they were sent', () => {
    const b = new Budget(25, 0, 1);
    expect(drain(b, 25, 0).filter((t) => t === 0)).toHaveLength(24);
    b.record(10); // a debit: the window now holds the whole budget, never more
    expect(b.readyAt(10)).toBe(1000);
    expect(drain(new Budget(1, 0, 1), 2, 0)).toEqual([0, 1000]); // never below one grant a window
  });

  it('below one a second: one grant per 1/qps seconds', () => {
    const b = new Budget(0.5);
    expect(drain(b, 3, 100)).toEqual([100, 2100, 4100]);
  });

  it('a new rate keeps the most recent grants counting; a hold delays everything', () => {
    const b = new Budget(10);
    drain(b, 10, 0);
    b.setQps(5); // another replica joined: the last 5 of the 10 grants at 0 still fill its window
    expect(b.readyAt(0)).toBe(1000);
    b.setQps(20); // it left: the 10 grants still count, 10 more places right away
    expect(drain(b, 10, 10).every((t) => t === 10)).toBe(true);
    expect(b.canGrant(10)).toBe(false);
    expect(b.readyAt(10)).toBe(1000);

    const h = new Budget(100);
    h.holdUntil(300);
    expect(h.canGrant(299)).toBe(false);
    expect(h.readyAtAfter(150, 0)).toBe(1300);
    expect(drain(h, 3, 0)).toEqual([300, 300, 300]);
  });

  it('is idle once a window has passed since its last grant and no hold is pending', () => {
    const b = new Budget(5, 50);
    expect(b.idle(0)).toBe(true);
    b.take();
    expect(b.idle(5000)).toBe(false); // in flight
    b.settle(100);
    expect(b.idle(1149)).toBe(false);
    expect(b.idle(1150)).toBe(true);
    b.holdUntil(5000);
    expect(b.idle(2000)).toBe(false);
    expect(() => new Budget(0)).toThrow(/positive rate/);
  });
});
