// Conformance suites from the command line: `node test/conformance/run.ts spf`.
// Prints one line per failing case, then exactly one JSON summary line per suite, last.
// SPF_CONFORMANCE_DNS=world serves the zone data from the shared simulated internet instead of
// the driver's own server (see docs/spf-conformance.md).
import { describeOutcome, isException, runSuite } from './spf/suite.ts';
import type { DnsWorld } from './spf/zone-server.ts';

async function worldFromEnv(): Promise<(DnsWorld & { skipped?: string[] }) | undefined> {
  if (process.env.SPF_CONFORMANCE_DNS !== 'world') return undefined;
  const { startWorldDns } = await import('./spf/world-adapter.ts');
  return startWorldDns();
}

const SUITES: Record<string, () => Promise<{ suite: string; passed: number; total: number; failedUnexpectedly: number }>> = {
  spf: async () => {
    const world = await worldFromEnv();
    const summary = await runSuite(world ? { world } : {}).finally(() => world?.close());
    for (const note of new Set(world?.skipped ?? [])) console.log(`not representable in the world: ${note}`);
    let failedUnexpectedly = 0;
    for (const o of summary.outcomes) {
      if (o.passed) continue;
      const known = isException(o.testCase.name);
      if (!known) failedUnexpectedly++;
      console.log(`${known ? 'known exception' : 'FAIL'}: ${describeOutcome(o)}`);
    }
    return { suite: summary.suite, passed: summary.passed, total: summary.total, failedUnexpectedly };
  },
};

const requested = process.argv.slice(2);
const names = requested.length > 0 ? requested : Object.keys(SUITES);
let exitCode = 0;
for (const name of names) {
  const run = SUITES[name];
  if (!run) {
    console.error(`unknown suite "${name}"; known: ${Object.keys(SUITES).join(', ')}`);
    process.exit(2);
  }
  const { suite, passed, total, failedUnexpectedly } = await run();
  if (failedUnexpectedly > 0) exitCode = 1;
  console.log(JSON.stringify({ suite, passed, total }));
}
process.exitCode = exitCode;
