import { defineConfig } from 'vitest/config';

// The cluster's fault scenarios (infra/src/cluster/faults.test.ts, docs/cluster.md): run by
// `npm run cluster -- test`, not by `npm test` for now: in a fresh-clone CI run five of the six
// passed after the suite but the slow-link scenario did not keep the slow host below both others.
export default defineConfig({
  test: {
    include: ['infra/src/cluster/faults.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 300_000,
    pool: 'forks',
  },
});
