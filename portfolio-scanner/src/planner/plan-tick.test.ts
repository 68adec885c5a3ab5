// The planner's decision per due domain, without MongoDB or NATS: advance a domain whose slot is
// already stored, publish a due one, republish one planned in this slot (after a stream check when
// its message's sequence is known).
import { describe, expect, it } from 'vitest';
import { nextDueAt, slotOf } from '../store/index.ts';
import { planMessageId, planTick, tickWindow, type DueDoc } from './plan-tick.ts';

const INTERVAL_S = 86_400;
const now = new Date('2026-03-02T12:00:00Z');
const doc = (domain: string, over: Partial<DueDoc> = {}): DueDoc => ({ _id: domain, next_scan_at: new Date(now.getTime() - 60_000), last_slot: null, planned_tick: null, last_full_dkim_at: null, ...over });
const slot = (d: string) => slotOf(d, now, INTERVAL_S);

describe('planTick', () => {
  it('publishes a due domain never scanned, with what the scan starts from', () => {
    const [a] = planTick([doc('fresh.example.test')], now, INTERVAL_S, new Map());
    expect(a).toEqual({ kind: 'publish', msg: { domain: 'fresh.example.test', slot: slot('fresh.example.test'), reason: 'due', start: { last_slot: null, last_full_dkim_at: null, dkim_selectors: null, ns: null } } });
  });

  it('advances a domain whose scan of this slot is stored, compare-and-set on the due time read', () => {
    const d = doc('done.example.test', { last_slot: slot('done.example.test') });
    expect(planTick([d], now, INTERVAL_S, new Map())).toEqual([{ kind: 'advance', domain: d._id, readDueAt: d.next_scan_at, nextScanAt: nextDueAt(d._id, INTERVAL_S, now) }]);
  });

  it('republishes a domain planned in this slot: after a stream check when its sequence is known', () => {
    const known = doc('known.example.test', { planned_at: now, planned_tick: 't1', last_slot: 3, last_full_dkim_at: new Date(5), result: { dkim_selectors: 's1', ns: 'ns1.example.test' } });
    const lost = doc('lost.example.test', { planned_at: now, planned_tick: 't0' });
    const [k, l] = planTick([known, lost], now, INTERVAL_S, new Map([['known.example.test', 42]]));
    expect(k).toEqual({ kind: 'publish', queuedSeq: 42, msg: { domain: known._id, slot: slot(known._id), reason: 'republish', start: { last_slot: 3, last_full_dkim_at: 5, dkim_selectors: 's1', ns: 'ns1.example.test' } } });
    expect(l).toMatchObject({ kind: 'publish', msg: { reason: 'republish' } });
    expect(l).not.toHaveProperty('queuedSeq');
  });

  it('publishes as due a domain planned in an earlier slot', () => {
    const old = doc('old.example.test', { planned_at: new Date(now.getTime() - 3 * INTERVAL_S * 1000) });
    expect(planTick([old], now, INTERVAL_S, new Map([['old.example.test', 7]]))[0]).toMatchObject({ kind: 'publish', msg: { reason: 'due' } });
  });
});

describe('tickWindow', () => {
  it('plans what is due PORTFOLIO_PLAN_DELAY_MS ago; the grace is at most half the interval', () => {
    const w = tickWindow({ PORTFOLIO_PLAN_GRACE_S: 600, PORTFOLIO_RESCAN_INTERVAL_S: 3_600, PORTFOLIO_PLAN_DELAY_MS: 1_000 }, now);
    expect(w).toEqual({ dueBy: new Date(now.getTime() - 1_000), graceMs: 600_000, later: new Date(now.getTime() + 600_000) });
    expect(tickWindow({ PORTFOLIO_PLAN_GRACE_S: 600, PORTFOLIO_RESCAN_INTERVAL_S: 60, PORTFOLIO_PLAN_DELAY_MS: 0 }, now).graceMs).toBe(30_000);
  });
});

describe('planMessageId', () => {
  it('keeps the slot id for a due scan and gives a republish an id of its own', () => {
    const msg = { domain: 'a.example.test', slot: 9, reason: 'due', start: { last_slot: null, last_full_dkim_at: null, dkim_selectors: null, ns: null } } as const;
    expect(planMessageId(msg, now)).toBe('a.example.test:9');
    expect(planMessageId({ ...msg, reason: 'republish' }, now)).toBe(`a.example.test:9:r${now.getTime()}`);
  });
});
