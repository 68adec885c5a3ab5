import type { NodeState } from '../fleet/fleet.ts';

/** A probe node as the fleet holds it, for ranking tests: one source IP named by the id's length. */
export function nodeState(id: string, more: Partial<NodeState> = {}): NodeState {
  return { id, sourceIps: [`10.0.0.${id.length}`], capacity: 10, reportedInFlight: 0, assigned: 0, providerHealth: {}, lastSeenMs: 0, draining: false, suspectUntilMs: 0, ...more };
}
