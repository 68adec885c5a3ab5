import { describe, expect, it } from 'vitest';
import { Coalescer } from './coalescer.ts';

// Group commit: batching under concurrency, per-entry outcomes, limits.

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('Coalescer', () => {
  it('sends a lone entry at once and gathers the ones that arrive while it is in flight', async () => {
    const batches: number[][] = [];
    const gate = deferred();
    const c = new Coalescer<number, number>({
      maxBatch: 100,
      maxInFlight: 1,
      flush: async (b) => {
        batches.push(b);
        if (batches.length === 1) await gate.promise;
        return b.map((x) => x * 2);
      },
    });
    const first = c.add(1);
    const rest = [2, 3, 4, 5].map((x) => c.add(x));
    expect(batches).toEqual([[1]]);
    gate.resolve();
    expect(await first).toBe(2);
    expect(await Promise.all(rest)).toEqual([4, 6, 8, 10]);
    expect(batches).toEqual([[1], [2, 3, 4, 5]]);
  });

  it('keeps batches within maxBatch and round trips within maxInFlight', async () => {
    let inFlight = 0;
    let peak = 0;
    const sizes: number[] = [];
    const c = new Coalescer<number, undefined>({
      maxBatch: 3,
      maxInFlight: 2,
      flush: async (b) => {
        inFlight++;
        peak = Math.max(peak, inFlight);
        sizes.push(b.length);
        await new Promise((r) => setTimeout(r, 5));
        inFlight--;
        return b.map(() => undefined);
      },
    });
    await Promise.all(Array.from({ length: 20 }, (_, i) => c.add(i)));
    expect(Math.max(...sizes)).toBeLessThanOrEqual(3);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(20);
    expect(peak).toBe(2);
  });

  it('rejects only the entries the flush refused; a failed flush rejects its whole batch, not later ones', async () => {
    let calls = 0;
    const c = new Coalescer<number, number>({
      maxBatch: 10,
      maxInFlight: 1,
      flush: async (b) => {
        calls++;
        if (b.includes(99)) throw new Error('down');
        return b.map((x) => (x % 2 ? new Error(`odd ${x}`) : x));
      },
    });
    const results = await Promise.allSettled([c.add(2), c.add(3), c.add(4)]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    await expect(c.add(99)).rejects.toThrow('down');
    expect(await c.add(6)).toBe(6);
    expect(calls).toBeGreaterThanOrEqual(3);
  });
});
