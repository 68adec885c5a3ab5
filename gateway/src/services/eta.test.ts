import { describe, expect, it } from 'vitest';
import type { LoadView } from './load.ts';
import { jobEta, queuedSingleEta } from './eta.ts';

const now = new Date('2026-11-25T12:00:00Z');
const load = (over: Partial<LoadView> = {}): LoadView => ({
  load: 'normal',
  queue: { single: 0, list: 0 },
  throughput_per_s: 10,
  probe_capacity: { total: 10, in_use: 1 },
  seconds_per_single: 3,
  seconds_per_1000: 200,
  reason: null,
  at: now.toISOString(),
  source: 'scheduler',
  ...over,
});
const noCapacity = load({ load: 'saturated', seconds_per_single: null, seconds_per_1000: null, reason: 'no_probe_capacity' });
const job = (over: Partial<Parameters<typeof jobEta>[0]> = {}) => ({ status: 'running' as const, kind: 'list' as const, mode: 'live' as const, total: 1000, done: 0, created_at: new Date(now.getTime() - 1000), ...over });

describe('job ETA', () => {
  it('finished jobs have none', () => {
    expect(jobEta(job({ status: 'completed' }), load(), now)).toEqual({ seconds: null, reason: null });
  });

  it('no probe capacity: null with the reason for live work, sandbox unaffected', () => {
    expect(jobEta(job(), noCapacity, now)).toEqual({ seconds: null, reason: 'no_probe_capacity' });
    expect(jobEta(job({ kind: 'single', total: 1 }), noCapacity, now)).toEqual({ seconds: null, reason: 'no_probe_capacity' });
    expect(jobEta(job({ mode: 'sandbox' }), noCapacity, now).seconds).toBe(2);
    expect(queuedSingleEta(noCapacity, 'live')).toEqual({ seconds: null, reason: 'no_probe_capacity' });
  });

  it('before progress: the global pace', () => {
    expect(jobEta(job(), load(), now).seconds).toBe(200);
  });

  it('after progress: the job\'s own pace (a politeness-limited list is slower than the global figure says)', () => {
    const started = new Date(now.getTime() - 60_000);
    // 250 of 1000 in 60 s: 180 s left at that pace, whatever the global figure says.
    expect(jobEta(job({ done: 250, created_at: started }), load(), now).seconds).toBe(180);
    // one more poll 25 s later with a little progress moves the ETA by little
    const later = new Date(now.getTime() + 25_000);
    const next = jobEta(job({ done: 300, created_at: started }), load(), later).seconds!;
    expect(next / 180).toBeGreaterThan(0.5);
    expect(next / 180).toBeLessThan(2);
  });

  it('a single waiting for its retry attempt counts to that attempt', () => {
    const item = { state: 'waiting_retry' as const, next_attempt_at: new Date(now.getTime() + 300_000) };
    expect(jobEta(job({ kind: 'single', total: 1 }), load(), now, item).seconds).toBe(303);
    expect(jobEta(job({ kind: 'single', total: 1 }), load(), now, { state: 'queued', next_attempt_at: null }).seconds).toBe(3);
  });

  it('a queued single: the singles ahead at the current pace', () => {
    expect(queuedSingleEta(load({ queue: { single: 50, list: 0 } }), 'live').seconds).toBe(8);
  });
});
