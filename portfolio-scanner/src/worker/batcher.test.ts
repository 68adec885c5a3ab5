// The store grouping, against a scripted store (a pure unit: what is grouped, not MongoDB): a
// quiet worker stores each scan alone and at once, a busy one in groups; a failing group is
// stored one by one so only the failing scan fails.
import { describe, expect, it } from 'vitest';
import type { ScanOutcome } from '@dv/contracts';
import type { ScanToStore, StoreScanResult } from '../store/index.ts';
import { Batcher } from './batcher.ts';

const scan = (domain: string): ScanToStore => ({ domain, slot: 1, outcome: {} as ScanOutcome });

function scripted(failOn?: string) {
  const groups: string[][] = [];
  const gates: (() => void)[] = [];
  const store = async (scans: readonly ScanToStore[]): Promise<StoreScanResult[]> => {
    groups.push(scans.map((s) => s.domain));
    await new Promise<void>((r) => gates.push(r));
    if (failOn && scans.some((s) => s.domain === failOn)) throw new Error(`cannot store ${failOn}`);
    return scans.map(() => ({ stored: true, changes: [] }));
  };
  const openAll = async () => {
    for (let i = 0; i < 20 && gates.length > 0; i++) {
      gates.splice(0).forEach((g) => g());
      await new Promise((r) => setTimeout(r, 1));
    }
  };
  return { store, groups, openAll };
}

describe('Batcher (grouped stores)', () => {
  it('stores at once while fewer than maxInFlight run; what finishes meanwhile leaves together, at most maxBatch', async () => {
    const { store, groups, openAll } = scripted();
    const b = new Batcher(store, { maxBatch: 3, maxInFlight: 2 });
    const all = ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((d) => b.add(scan(d)));
    // a and b left alone, at once; c..g wait for a place.
    expect(groups).toEqual([['a'], ['b']]);
    await openAll();
    expect((await Promise.all(all)).every((r) => r.stored)).toBe(true);
    expect(groups).toEqual([['a'], ['b'], ['c', 'd', 'e'], ['f', 'g']]);
  });

  it('with lingerMs, a group waits that long after its first item for others, and no longer once maxBatch wait', async () => {
    const groups: string[][] = [];
    const b = new Batcher(async (scans: readonly ScanToStore[]) => {
      groups.push(scans.map((s) => s.domain));
      return scans.map(() => ({ stored: true, changes: [] }) as StoreScanResult);
    }, { maxBatch: 3, maxInFlight: 2, lingerMs: 40 });
    const t0 = performance.now();
    const first = b.add(scan('a'));
    await new Promise((r) => setTimeout(r, 10));
    const second = b.add(scan('b'));
    expect(groups).toEqual([]);
    await Promise.all([first, second]);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(35);
    expect(groups).toEqual([['a', 'b']]);
    // maxBatch waiting: they leave at once.
    const full = ['c', 'd', 'e'].map((d) => b.add(scan(d)));
    expect(groups).toEqual([['a', 'b'], ['c', 'd', 'e']]);
    await Promise.all(full);
  });

  it('a failing group is stored one by one: only the failing scan is rejected', async () => {
    const { store, groups, openAll } = scripted('bad');
    const b = new Batcher(store, { maxBatch: 10, maxInFlight: 1 });
    const first = b.add(scan('x'));
    const rest = ['y', 'bad', 'z'].map((d) => b.add(scan(d)).then((r) => r.stored, (e: Error) => e.message));
    await openAll();
    await first;
    expect(await Promise.all(rest)).toEqual([true, 'cannot store bad', true]);
    expect(groups).toEqual([['x'], ['y', 'bad', 'z'], ['y'], ['bad'], ['z']]);
  });
});
