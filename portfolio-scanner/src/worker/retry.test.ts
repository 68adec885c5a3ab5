import { describe, expect, it } from 'vitest';
import { isLastDelivery, knownSelectors, retryDelayMs } from './retry.ts';

describe('retry decisions', () => {
  it.each([
    [1, 5_000],
    [2, 10_000],
    [3, 20_000],
    [7, 300_000],
    [60, 300_000],
    [0, 5_000],
  ])('delivery %i failed: next after %i ms', (n, ms) => expect(retryDelayMs(n, 5_000, 300_000)).toBe(ms));

  it.each([
    [4, 5, false],
    [5, 5, true],
    [6, 5, true],
    [100, -1, false],
    [100, 0, false],
  ])('delivery %i of max %i is the last: %s', (n, max, last) => expect(isLastDelivery(n, max)).toBe(last));

  it('reads the stored selector list', () => {
    expect(knownSelectors('google, k1,s1 ')).toEqual(['google', 'k1', 's1']);
    expect(knownSelectors(null)).toEqual([]);
    expect(knownSelectors('')).toEqual([]);
  });
});
