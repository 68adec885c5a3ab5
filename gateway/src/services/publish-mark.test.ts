// The job's publish mark covers only an unbroken run of acked batches from seq 0.
import { describe, expect, it } from 'vitest';
import { publishedPrefix } from './jobs.ts';

describe('publishedPrefix', () => {
  it('moves over consecutive finished batches only', () => {
    expect(publishedPrefix(new Set([0]), 0, 2_000, 5_000)).toBe(2_000);
    // The second batch finished before the first: nothing is covered yet.
    expect(publishedPrefix(new Set([2_000]), 0, 2_000, 5_000)).toBe(0);
    // Once the first one lands, both are.
    expect(publishedPrefix(new Set([0, 2_000]), 0, 2_000, 5_000)).toBe(4_000);
    expect(publishedPrefix(new Set([0, 2_000, 4_000]), 4_000, 2_000, 5_000)).toBe(5_000);
  });

  it('stops at the total (a short last batch) and at a gap', () => {
    expect(publishedPrefix(new Set([0, 2_000, 4_000]), 0, 2_000, 4_500)).toBe(4_500);
    expect(publishedPrefix(new Set([0, 4_000]), 0, 2_000, 5_000)).toBe(2_000);
    expect(publishedPrefix(new Set(), 0, 2_000, 0)).toBe(0);
  });
});
