import { describe, expect, it } from 'vitest';
import { DependencyGrace } from './readiness.ts';

describe('DependencyGrace', () => {
  it('fails readiness only after a dependency has been down for the whole grace', () => {
    let now = 1_000;
    const g = new DependencyGrace(10_000, () => now);
    expect(g.judge([['redis', false], ['nats', true]])).toEqual({ failing: [], tolerated: ['redis'] });
    now += 9_999;
    expect(g.judge([['redis', false], ['nats', true]])).toEqual({ failing: [], tolerated: ['redis'] });
    now += 1;
    expect(g.judge([['redis', false], ['nats', true]])).toEqual({ failing: ['redis'], tolerated: [] });
  });

  it('starts the count again after any check that finds it up (a flapping backend is not "down for 10 s")', () => {
    let now = 0;
    const g = new DependencyGrace(10_000, () => now);
    g.judge([['redis', false]]);
    now = 8_000;
    g.judge([['redis', true]]);
    now = 9_000;
    expect(g.judge([['redis', false]]).failing).toEqual([]);
    now = 18_999;
    expect(g.judge([['redis', false]]).failing).toEqual([]);
    now = 19_000;
    expect(g.judge([['redis', false]]).failing).toEqual(['redis']);
  });

  it('with no grace, fails at the first failed check', () => {
    expect(new DependencyGrace(0, () => 5).judge([['mongodb', false]])).toEqual({ failing: ['mongodb'], tolerated: [] });
  });
});
