// The RFC 7208 test suite (pyspf's rfc7208-tests.yml) run through checkHost with the real
// resolver against a real DNS server on loopback. Shared by the vitest file and the CLI.
import { readFileSync } from 'node:fs';
import { loadAll } from 'js-yaml';
import { DnsResolver, checkHost } from '@dv/mailsec';
import { zonedataToRecords, type ZoneEntry } from './zonedata.ts';
import { startZoneServer, type DnsWorld } from './zone-server.ts';
import { EXCEPTIONS } from './exceptions.ts';

export const SUITE_PATH = process.env.SPF_SUITE_PATH ?? '/work/shared/testdata/spf/rfc7208-tests.yml';
export const SUITE_NAME = 'rfc7208';
export const MIN_PASS_RATE = 0.95;

/** Short so TIMEOUT scenarios cost well under a second each. */
export const RESOLVER_SETTINGS = { timeoutMs: 200, retries: 1 } as const;

export interface SpfCase {
  name: string;
  scenario: string;
  spec: string;
  helo: string;
  host: string;
  mailfrom: string;
  /** Acceptable results; the first is the preferred one. */
  results: string[];
  explanation?: string;
}

export interface Scenario {
  description: string;
  records: ZoneEntry[];
  cases: SpfCase[];
}

export interface CaseOutcome {
  testCase: SpfCase;
  passed: boolean;
  result: string;
  explanation?: string;
  reason?: string;
}

interface YamlScenario {
  description?: string;
  tests?: Record<string, Record<string, unknown>>;
  zonedata?: Parameters<typeof zonedataToRecords>[0];
}

export function loadSuite(path: string = SUITE_PATH): Scenario[] {
  const docs = loadAll(readFileSync(path, 'utf8')) as YamlScenario[];
  return docs.map((doc) => {
    const description = String(doc.description ?? '');
    const cases = Object.entries(doc.tests ?? {}).map(([name, t]): SpfCase => ({
      name,
      scenario: description,
      spec: String(t.spec ?? ''),
      helo: String(t.helo ?? ''),
      host: String(t.host ?? ''),
      mailfrom: String(t.mailfrom ?? ''),
      results: (Array.isArray(t.result) ? t.result : [t.result]).map(String),
      ...(t.explanation !== undefined ? { explanation: String(t.explanation) } : {}),
    }));
    return { description, records: zonedataToRecords(doc.zonedata ?? {}), cases };
  });
}

export function newResolver(world: DnsWorld): DnsResolver {
  return new DnsResolver({ servers: [world.address], ...RESOLVER_SETTINGS });
}

/** One case the way pyspf's driver runs it: MAIL FROM identity, HELO fallback, "DEFAULT" explanation. */
export async function runCase(testCase: SpfCase, resolver: DnsResolver): Promise<CaseOutcome> {
  const out = await checkHost({ ip: testCase.host, sender: testCase.mailfrom, helo: testCase.helo }, resolver, { defaultExplanation: 'DEFAULT' });
  const resultOk = testCase.results.includes(out.result);
  const explanationOk = testCase.explanation === undefined || testCase.explanation === out.explanation;
  return {
    testCase,
    passed: resultOk && explanationOk,
    result: out.result,
    ...(out.explanation !== undefined ? { explanation: out.explanation } : {}),
    ...(out.reason !== undefined ? { reason: out.reason } : {}),
  };
}

/** Runs one scenario's cases concurrently against a world loaded with its records. */
export async function runScenario(scenario: Scenario, world: DnsWorld): Promise<CaseOutcome[]> {
  await world.setRecords(scenario.records);
  // A fresh resolver per scenario: the same names carry different data in different scenarios.
  const resolver = newResolver(world);
  try {
    return await Promise.all(scenario.cases.map((c) => runCase(c, resolver)));
  } finally {
    resolver.close();
  }
}

export interface SuiteSummary {
  suite: string;
  passed: number;
  total: number;
  outcomes: CaseOutcome[];
}

export async function runSuite(options: { world?: DnsWorld; scenarios?: Scenario[] } = {}): Promise<SuiteSummary> {
  const world = options.world ?? (await startZoneServer());
  const scenarios = options.scenarios ?? loadSuite();
  try {
    const outcomes: CaseOutcome[] = [];
    for (const scenario of scenarios) outcomes.push(...(await runScenario(scenario, world)));
    return { suite: SUITE_NAME, passed: outcomes.filter((o) => o.passed).length, total: outcomes.length, outcomes };
  } finally {
    if (!options.world) await world.close();
  }
}

export function describeOutcome(o: CaseOutcome): string {
  const want = o.testCase.results.join('|') + (o.testCase.explanation !== undefined ? ` (explanation "${o.testCase.explanation}")` : '');
  const got = o.result + (o.explanation !== undefined ? ` (explanation "${o.explanation}")` : '') + (o.reason ? ` [${o.reason}]` : '');
  return `${o.testCase.name} [${o.testCase.scenario}, RFC 7208 ${o.testCase.spec}]: expected ${want}, got ${got}`;
}

export function isException(name: string): boolean {
  return Object.hasOwn(EXCEPTIONS, name);
}
