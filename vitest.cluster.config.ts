import { defineConfig } from 'vitest/config';

// The cluster's fault scenarios (infra/src/cluster/faults.test.ts, docs/cluster.md): the second half
// of `npm test`, started only once the suite (and its private stack) has finished, and alone by
// `npm run cluster -- test`. Not beside the suite: two fresh-clone CI runs saw the test stack's
// mongod (wine) exit with an unhandled exception while the cluster's mongod started beside it.
export default defineConfig({
  test: {
    include: ['infra/src/cluster/faults.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 300_000,
    pool: 'forks',
  },
});
