import { defineConfig } from 'vitest/config';

// One global setup starts a private stack (NATS, Redis, MongoDB) on free ports for the whole run;
// test files read its addresses through `inject('stack')`.
export default defineConfig({
  test: {
    include: ['packages/*/src/**/*.test.ts', 'infra/**/*.test.ts', '{gateway,scheduler,probe-node,lookup,portfolio-scanner}/src/**/*.test.ts', 'test/**/*.test.ts'],
    // The cluster's fault scenarios run after this suite, under vitest.cluster.config.ts (npm test).
    exclude: ['**/node_modules/**', '.local/**', 'infra/src/cluster/faults.test.ts'],
    globalSetup: ['./test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 2,
  },
});
