// A node whose sessions take clearly longer per address (a slow link, a loaded host) ranks after the
// faster ones, below the health terms and above connection stickiness and free capacity; within
// SLOW_NODE_FACTOR of the fastest, pace changes nothing.
import { describe, expect, it } from 'vitest';
import type { Logger } from '@dv/runtime';
import { SCHEDULER_DEFAULTS } from '../defaults.ts';
import { Fleet, holdForFaster, rankCandidates, type NodeState } from './fleet.ts';
import { nodeState } from '../testing/nodes.ts';

const node = nodeState;
const order = (nodes: NodeState[], lastIpKey: string | null = null) => rankCandidates(nodes, 'p', 0, null, lastIpKey).map((c) => c.node.id);

describe('pace in node ranking', () => {
  const factor = SCHEDULER_DEFAULTS.slowNodeFactor;

  it('a node past the factor ranks after a faster one, even with more free capacity or the host last session', () => {
    const fast = node('a', { paceMsPerAddress: 100, reportedInFlight: 8 });
    const slow = node('bb', { paceMsPerAddress: 100 * factor + 1 });
    expect(order([slow, fast])).toEqual(['a', 'bb']);
    expect(order([slow, fast], '10.0.0.2')).toEqual(['a', 'bb']);
  });

  it('within the factor (and before any pace is known) free capacity decides', () => {
    expect(order([node('a', { paceMsPerAddress: 100, reportedInFlight: 8 }), node('bb', { paceMsPerAddress: 100 * factor })])).toEqual(['bb', 'a']);
    expect(order([node('a', { reportedInFlight: 8 }), node('bb', { paceMsPerAddress: 1_000 })])).toEqual(['bb', 'a']);
  });

  it('health comes before pace; a full fast node leaves the slow one to carry the work', () => {
    const blockedFast = node('a', { paceMsPerAddress: 100, providerHealth: { p: { throttled: 0, blocked: 1 } } });
    expect(order([blockedFast, node('bb', { paceMsPerAddress: 1_000 })])).toEqual(['bb', 'a']);
    expect(order([node('a', { paceMsPerAddress: 100, assigned: 10 }), node('bb', { paceMsPerAddress: 1_000 })])).toEqual(['bb']);
  });

  it('a batch turned away by a faster node for a moment waits for it up to what the slow node would cost, then takes the slow one', () => {
    const slow = node('bb', { paceMsPerAddress: 400 });
    // 20 addresses at 400 ms instead of 25 ms: 7.5 s longer over the session.
    expect(holdForFaster(slow, 25, 20, 0)).toBe(7_500);
    expect(holdForFaster(slow, 25, 20, 7_000)).toBe(500);
    expect(holdForFaster(slow, 25, 20, 7_500)).toBe(0);
    expect(holdForFaster(slow, 25, 1, 0)).toBe(375);
  });

  it('no hold within the factor, before any pace is known, or with no faster node about to open', () => {
    expect(holdForFaster(node('bb', { paceMsPerAddress: 100 * factor }), 100, 20, 0)).toBe(0);
    expect(holdForFaster(node('bb'), 25, 20, 0)).toBe(0);
    expect(holdForFaster(node('bb', { paceMsPerAddress: 400 }), undefined, 20, 0)).toBe(0);
  });

  it('recordPace keeps a moving average per node from answered sessions', () => {
    const silent = { info: () => undefined, warn: () => undefined } as unknown as Logger;
    const fleet = new Fleet({ nc: {} as never, log: silent, goneMs: 10_000 });
    (fleet as unknown as { nodes: Map<string, NodeState> }).nodes.set('a', node('a'));
    fleet.recordPace('a', 2_000, 20);
    const a = (fleet as unknown as { nodes: Map<string, NodeState> }).nodes.get('a')!;
    expect(a.paceMsPerAddress).toBe(100);
    fleet.recordPace('a', 6_000, 20);
    expect(a.paceMsPerAddress).toBeCloseTo(100 + SCHEDULER_DEFAULTS.nodePaceWeight * 200);
    fleet.recordPace('unknown', 1_000, 1);
    fleet.recordPace('a', 1_000, 0);
    expect(a.paceMsPerAddress).toBeCloseTo(100 + SCHEDULER_DEFAULTS.nodePaceWeight * 200);
  });
});
