// The RFC 7208 suite, one vitest test per case, against a real DNS server on loopback.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DnsResolver } from '@dv/mailsec';
import { EXCEPTIONS } from './exceptions.ts';
import { describeOutcome, isException, loadSuite, MIN_PASS_RATE, newResolver, runCase, runSuite } from './suite.ts';
import { startZoneServer, type DnsWorld } from './zone-server.ts';

const scenarios = loadSuite();
let world: DnsWorld;

beforeAll(async () => {
  world = await startZoneServer();
});
afterAll(async () => {
  await world.close();
});

for (const scenario of scenarios) {
  describe(`RFC 7208 suite: ${scenario.description}`, () => {
    let resolver: DnsResolver;
    beforeAll(async () => {
      await world.setRecords(scenario.records);
      resolver = newResolver(world);
    });
    afterAll(() => resolver.close());

    const cases = scenario.cases.filter((c) => !isException(c.name));
    it.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, testCase) => {
      const outcome = await runCase(testCase, resolver);
      expect(outcome.passed, describeOutcome(outcome)).toBe(true);
    });
  });
}

describe('RFC 7208 suite as a whole', () => {
  it(`passes at least ${MIN_PASS_RATE * 100}% of all cases, and every listed exception still fails`, { timeout: 60_000 }, async () => {
    const summary = await runSuite({ scenarios });
    expect(summary.total).toBe(scenarios.reduce((n, s) => n + s.cases.length, 0));
    expect(summary.passed / summary.total).toBeGreaterThanOrEqual(MIN_PASS_RATE);
    const names = new Set(summary.outcomes.map((o) => o.testCase.name));
    for (const name of Object.keys(EXCEPTIONS)) {
      expect(names.has(name), `exception "${name}" names no case in the suite`).toBe(true);
      const outcome = summary.outcomes.find((o) => o.testCase.name === name);
      expect(outcome?.passed, `exception "${name}" now passes: remove it from exceptions.ts`).toBe(false);
    }
  });
});
