import { defineConfig } from 'vitest/config';

// The cluster's fault scenarios (infra/src/cluster/faults.test.ts, docs/cluster.md): run by
// `npm run cluster -- test`, not by `npm test` for now. Two fresh-clone CI runs saw the test
// stack's mongod (wine) exit with an unhandled exception while the cluster's mongod started beside
// it on a hard-linked copy of the same wine prefix; the copy is now a real one, and the fault tests
// join `npm test` again once runs beside the suite are shown clean.
export default defineConfig({
  test: {
    include: ['infra/src/cluster/faults.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 300_000,
    pool: 'forks',
  },
});
