import { describe, expect, it } from 'vitest';
import { maxAttempts, nextAttemptAt, webhookLadder } from './ladder.ts';

const T0 = new Date('2026-11-22T00:00:00.000Z');
const MIN = 60_000;

describe('nextAttemptAt', () => {
  const cases: Array<[number, number, number | null]> = [
    // [scale, attempts made, expected delay in ms after the failure (null = give up)]
    [1, 1, 1 * MIN],
    [1, 2, 5 * MIN],
    [1, 3, 30 * MIN],
    [1, 4, 120 * MIN],
    [1, 5, 360 * MIN],
    [1, 6, null],
    [1, 7, null],
    [1, 0, null],
    [0.001, 1, 60],
    [0.001, 2, 300],
    [0.001, 3, 1_800],
    [0.001, 4, 7_200],
    [0.001, 5, 21_600],
    [0.001, 6, null],
  ];
  it.each(cases)('scale %s, after attempt %s → +%s ms', (scale, made, delayMs) => {
    const next = nextAttemptAt(webhookLadder(scale), made, T0);
    expect(next === null ? null : next.getTime() - T0.getTime()).toBe(delayMs);
  });

  it('allows six attempts in all (first try + five retries)', () => {
    expect(maxAttempts(webhookLadder())).toBe(6);
  });

  it('refuses a scale that is not a positive number', () => {
    expect(() => webhookLadder(0)).toThrow(RangeError);
    expect(() => webhookLadder(Number.NaN)).toThrow(RangeError);
  });
});
