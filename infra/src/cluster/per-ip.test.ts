import { describe, expect, it } from 'vitest';
import { perIpFigures } from './per-ip.ts';

describe('perIpFigures', () => {
  it('counts a session opened while the same source address already held the limit', () => {
    const figs = perIpFigures(
      [
        { clientIp: 'a', startedAtMs: 0, endedAtMs: 10 },
        { clientIp: 'a', startedAtMs: 1, endedAtMs: 10 },
        { clientIp: 'a', startedAtMs: 2, endedAtMs: 3 },
        { clientIp: 'b', startedAtMs: 2, endedAtMs: 9 },
      ],
      2,
    );
    expect(figs.a).toEqual({ sessions: 3, maxConcurrent: 3, violations: 1 });
    expect(figs.b).toEqual({ sessions: 1, maxConcurrent: 1, violations: 0 });
  });

  it('frees the slot of a session that closed at the instant the next one opened', () => {
    const figs = perIpFigures(
      [
        { clientIp: 'a', startedAtMs: 0, endedAtMs: 5 },
        { clientIp: 'a', startedAtMs: 5 },
      ],
      1,
    );
    expect(figs.a).toEqual({ sessions: 2, maxConcurrent: 1, violations: 0 });
  });

  it('keeps a session with no end open to the last', () => {
    const figs = perIpFigures(
      [
        { clientIp: 'a', startedAtMs: 0 },
        { clientIp: 'a', startedAtMs: 100, endedAtMs: 101 },
      ],
      1,
    );
    expect(figs.a?.violations).toBe(1);
  });
});
