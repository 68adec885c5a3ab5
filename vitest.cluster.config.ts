import { defineConfig } from 'vitest/config';

// The cluster's fault scenarios (infra/src/cluster/faults.test.ts, docs/cluster.md): the second half
// of `npm test`, started only once the suite (and its private stack) has finished, never beside it;
// alone by `npm run cluster -- test`.
export default defineConfig({
  test: {
    include: ['infra/src/cluster/faults.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 300_000,
    pool: 'forks',
  },
});
