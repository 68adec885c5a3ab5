// What other workspaces' tests use of the lookup service's test harness (@dv/lookup/testing).
export { createFakeEngine, type FakeEngine } from './fake-engine.ts';
export { startLookup, type LookupHarness } from './harness.ts';
