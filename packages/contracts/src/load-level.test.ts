import { describe, expect, it } from 'vitest';
import { LOAD_LEVEL_THRESHOLDS, loadLevelOf } from './load-level.ts';

describe('loadLevelOf', () => {
  it.each([
    [{ secondsPerSingle: 3, utilisation: 0.2, stalled: false }, 'normal'],
    [{ secondsPerSingle: 10, utilisation: 0.2, stalled: false }, 'busy'],
    [{ secondsPerSingle: 3, utilisation: 0.7, stalled: false }, 'busy'],
    [{ secondsPerSingle: 60, utilisation: 0.2, stalled: false }, 'saturated'],
    [{ secondsPerSingle: 3, utilisation: 0.95, stalled: false }, 'saturated'],
    [{ secondsPerSingle: 3, utilisation: 0, stalled: true }, 'saturated'],
    // Capacity unknown (the gateway's fallback): the wait alone decides.
    [{ secondsPerSingle: 9, utilisation: null, stalled: false }, 'normal'],
    [{ secondsPerSingle: 59, utilisation: null, stalled: false }, 'busy'],
  ] as const)('%o -> %s', (signals, level) => {
    expect(loadLevelOf(signals)).toBe(level);
  });

  it('takes other thresholds', () => {
    expect(loadLevelOf({ secondsPerSingle: 5, utilisation: null, stalled: false }, { ...LOAD_LEVEL_THRESHOLDS, busySeconds: 5 })).toBe('busy');
  });
});
