import { describe, expect, it } from 'vitest';
import type { LoadFigures } from '@dv/contracts';
import { computeLoad, smoothLoad } from './load.ts';

const t = { busySeconds: 10, saturatedSeconds: 60, busyCapacity: 0.7, saturatedCapacity: 0.95, idleSecondsPerSingle: 3 };

describe('no probe capacity', () => {
  it.each([
    ['empty queue', 0],
    ['work waiting', 500],
  ])('%s: saturated with a reason and no estimate', (_what, queued) => {
    const f = computeLoad({ queueSingle: queued, queueList: queued, parkedSingle: 0, parkedList: 0, throughputPerS: 40, capacityTotal: 0, capacityInUse: 0 }, t, new Date(0));
    expect(f).toMatchObject({ load: 'saturated', reason: 'no_probe_capacity', seconds_per_single: null, seconds_per_1000: null });
  });

  it('capacity back: figures and no reason', () => {
    const f = computeLoad({ queueSingle: 0, queueList: 0, parkedSingle: 0, parkedList: 0, throughputPerS: 0, capacityTotal: 10, capacityInUse: 0 }, t, new Date(0));
    expect(f).toMatchObject({ load: 'normal', reason: null, seconds_per_single: 3 });
  });
});

describe('parked items', () => {
  it('a parked single check is counted as a single check, but is not ahead of a new one', () => {
    const base = { queueSingle: 10, queueList: 0, parkedSingle: 0, parkedList: 0, throughputPerS: 10, capacityTotal: 10, capacityInUse: 1 };
    const plain = computeLoad(base, t, new Date(0));
    const parked = computeLoad({ ...base, parkedSingle: 500, parkedList: 2_000 }, t, new Date(0));
    expect(parked.queue).toEqual({ single: 510, list: 2_000 });
    expect(parked.seconds_per_single).toBe(plain.seconds_per_single);
    expect(parked.load).toBe(plain.load);
    expect(parked.seconds_per_1000!).toBeGreaterThan(plain.seconds_per_1000!);
  });
});

describe('smoothLoad', () => {
  const at = (ms: number, single: number | null, per1000: number | null): LoadFigures => ({
    load: 'normal',
    queue: { single: 0, list: 0 },
    throughput_per_s: 1,
    probe_capacity: { total: 10, in_use: 0 },
    seconds_per_single: single,
    seconds_per_1000: per1000,
    reason: single === null ? 'no_probe_capacity' : null,
    at: new Date(ms).toISOString(),
  });

  it('one half-life moves half way in log space', () => {
    const s = smoothLoad(at(0, 10, 100), at(10_000, 1000, 100), 10_000);
    expect(s.seconds_per_single).toBeCloseTo(100, 0); // geometric mean of 10 and 1000
    expect(s.seconds_per_1000).toBe(100);
  });

  it('a burst of a few seconds does not swing the figures; a sustained change arrives', () => {
    let prev = at(0, 5, 500);
    // three one-second ticks whose raw figure jumped 1000x (a throughput window that missed a burst)
    for (let i = 1; i <= 3; i++) prev = smoothLoad(prev, at(i * 1000, 5000, 500_000), 10_000);
    expect(prev.seconds_per_single).toBeLessThan(5 * 5);
    for (let i = 4; i <= 10; i++) prev = smoothLoad(prev, at(i * 1000, 5, 500), 10_000);
    expect(prev.seconds_per_single).toBeLessThan(5 * 3);
    // the same raw figure for two minutes is what the figures say by then
    for (let i = 11; i <= 130; i++) prev = smoothLoad(prev, at(i * 1000, 5000, 500_000), 10_000);
    expect(prev.seconds_per_single).toBeGreaterThan(4500);
  });

  it('no smoothing across a gap in capacity, nor backwards in time', () => {
    expect(smoothLoad(at(0, null, null), at(1000, 8, 80), 10_000).seconds_per_single).toBe(8);
    expect(smoothLoad(at(0, 8, 80), at(1000, null, null), 10_000).seconds_per_single).toBeNull();
    expect(smoothLoad(at(5000, 8, 80), at(1000, 80, 800), 10_000).seconds_per_single).toBe(80);
    expect(smoothLoad(null, at(1000, 80, 800), 10_000).seconds_per_single).toBe(80);
  });
});
