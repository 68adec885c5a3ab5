import { describe, expect, it } from 'vitest';
import { nextDueAt, phaseOf, slotOf } from './schedule.ts';

const DAY_S = 86_400;
const NOW = new Date('2026-03-10T13:37:00.123Z');

describe('rescan timing', () => {
  it('spreads 10,000 domains so that no 1% of the interval holds more than 3% of them', () => {
    const buckets = new Array<number>(100).fill(0);
    for (let i = 0; i < 10_000; i++) {
      const offsetMs = nextDueAt(`domain-${i}.example.test`, DAY_S, NOW).getTime() - NOW.getTime();
      expect(offsetMs).toBeGreaterThan(0);
      expect(offsetMs).toBeLessThanOrEqual(DAY_S * 1000);
      buckets[Math.min(99, Math.floor((offsetMs / (DAY_S * 1000)) * 100))]! += 1;
    }
    expect(Math.max(...buckets)).toBeLessThanOrEqual(300);
    expect(Math.min(...buckets)).toBeGreaterThan(0);
  });

  it('keeps each domain at its phase: the next due time is one interval after the last', () => {
    const d = 'acme.example.test';
    const due = nextDueAt(d, DAY_S, NOW);
    expect(nextDueAt(d, DAY_S, due).getTime() - due.getTime()).toBe(DAY_S * 1000);
    expect(nextDueAt(d, DAY_S, new Date(due.getTime() - 1))).toEqual(due);
    expect(phaseOf(d)).toBe(phaseOf(d));
    expect(phaseOf(d)).not.toBe(phaseOf('other.example.test'));
  });

  it('gives a due time the slot that starts at it, and every time until the next due time the same slot', () => {
    const d = 'acme.example.test';
    const due = nextDueAt(d, 20, NOW);
    expect(slotOf(d, due, 20)).toBe(due.getTime());
    expect(slotOf(d, new Date(due.getTime() + 19_999), 20)).toBe(due.getTime());
    expect(slotOf(d, new Date(due.getTime() + 20_000), 20)).toBe(due.getTime() + 20_000);
    expect(slotOf(d, new Date(due.getTime() - 1), 20)).toBe(due.getTime() - 20_000);
  });

  it('keeps slots increasing in time across intervals (a slot is its start time)', () => {
    const d = 'acme.example.test';
    const before = slotOf(d, NOW, DAY_S);
    expect(slotOf(d, new Date(NOW.getTime() + DAY_S * 1000), 3_600)).toBeGreaterThan(before);
  });
});
