// The gateway's load figures without a scheduler use the scheduler's definition of busy and
// saturated (@dv/contracts loadLevelOf) over the wait the default speeds give, so both answer alike.
import { describe, expect, it } from 'vitest';
import { loadLevelOf } from '@dv/contracts';
import { fallbackLoad } from './load.ts';

const at = new Date('2026-11-25T12:00:00Z');

describe('fallbackLoad', () => {
  it('estimates like the scheduler and words the level like it', () => {
    // 8 s idle, 600 s per 1,000: each waiting single check adds 0.6 s.
    expect(fallbackLoad({ single: 0, list: 0 }, 8, 600, at)).toMatchObject({ load: 'normal', seconds_per_single: 8, seconds_per_1000: 600, source: 'fallback' });
    expect(fallbackLoad({ single: 4, list: 0 }, 8, 600, at)).toMatchObject({ load: 'busy', seconds_per_single: 10.4 });
    expect(fallbackLoad({ single: 100, list: 0 }, 8, 600, at)).toMatchObject({ load: 'saturated', seconds_per_single: 68 });
    // List items wait behind singles: they lengthen a list's estimate, not a single check's wait.
    expect(fallbackLoad({ single: 0, list: 50_000 }, 8, 600, at)).toMatchObject({ load: 'normal', seconds_per_1000: 30_600 });
  });

  it('agrees with loadLevelOf for any queue', () => {
    for (const single of [0, 1, 3, 4, 50, 86, 87, 5_000]) {
      const v = fallbackLoad({ single, list: 0 }, 8, 600, at);
      expect(v.load).toBe(loadLevelOf({ secondsPerSingle: v.seconds_per_single!, utilisation: null, stalled: false }));
    }
  });
});
