import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '@dv/stack';
import { RULES_DIR, loadRules, promtool, promtoolPath, ruleFiles, ruleTestFiles } from '@dv/infra/prometheus/rules';

// The Prometheus rules are checked and unit-tested with promtool (Debian `prometheus`) in CI, and
// every alert is tested, has a severity and a runbook entry in docs/operations.md.

const rules = loadRules();
const alerts = rules.filter((r) => r.alert);
let scratch: string;

beforeAll(() => {
  promtoolPath((msg) => process.stdout.write(`[promtool] ${msg}\n`));
  scratch = mkdtempSync(join(tmpdir(), 'dv-promtool-'));
}, 300_000);

afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

describe('promtool', () => {
  it('check rules accepts every rule file', () => {
    const r = promtool(['check', 'rules', ...ruleFiles()]);
    expect(r.output).not.toMatch(/FAILED/);
    expect(r.status, r.output).toBe(0);
    expect(ruleFiles().length).toBeGreaterThanOrEqual(3);
  });

  it('test rules passes every unit test file', () => {
    const r = promtool(['test', 'rules', ...ruleTestFiles()]);
    expect(r.status, r.output).toBe(0);
    expect(r.output.match(/SUCCESS/g)?.length).toBe(ruleTestFiles().length);
  });

  it('check rules refuses an expression that does not parse', () => {
    const bad = join(scratch, 'bad.yml');
    writeFileSync(bad, 'groups:\n  - name: bad\n    rules:\n      - alert: Bad\n        expr: sum(rate(x[5m])\n');
    const r = promtool(['check', 'rules', bad]);
    expect(r.status).not.toBe(0);
    expect(r.output).toMatch(/FAILED|parse error|unclosed/i);
  });

  it('test rules fails when an alert fires earlier than its test expects (the harness can fail)', () => {
    const bad = join(scratch, 'early.test.yml');
    writeFileSync(
      bad,
      [
        `rule_files: [${join(RULES_DIR, 'alerts-pipeline.yml')}]`,
        'evaluation_interval: 1m',
        'tests:',
        '  - interval: 1m',
        "    input_series: [{ series: 'scheduler_no_probe_capacity{instance=\"s1\"}', values: '1x10' }]",
        '    alert_rule_test:',
        '      - { eval_time: 1m, alertname: ProbePoolEmpty, exp_alerts: [{ exp_labels: { severity: page } }] }',
        '',
      ].join('\n'),
    );
    const r = promtool(['test', 'rules', bad]);
    expect(r.status).not.toBe(0);
    expect(r.output).toContain('FAILED');
  });
});

describe('every alert', () => {
  const tested = new Set<string>();
  for (const file of ruleTestFiles()) {
    const doc = load(readFileSync(file, 'utf8')) as { tests: Array<{ alert_rule_test?: Array<{ alertname: string; exp_alerts?: unknown[] }> }> };
    for (const t of doc.tests) for (const a of t.alert_rule_test ?? []) if ((a.exp_alerts ?? []).length > 0) tested.add(a.alertname);
  }
  const operations = readFileSync(join(REPO_ROOT, 'docs', 'operations.md'), 'utf8');
  // GitHub's heading anchors: lower case, punctuation dropped.
  const anchors = new Set([...operations.matchAll(/^#{2,4} (.+)$/gm)].map((m) => m[1]!.trim().toLowerCase().replace(/[^a-z0-9 -]/g, '').replace(/ /g, '-')));

  it('is unique and there is one for each issue-14 concern', () => {
    const names = alerts.map((a) => a.alert!);
    expect(new Set(names).size).toBe(names.length);
    expect(names.length).toBeGreaterThanOrEqual(15);
  });

  for (const a of alerts) {
    it(`${a.alert}: fires in a promtool unit test, has a severity and a runbook entry`, () => {
      expect(tested.has(a.alert!), `no test in infra/prometheus/tests expects ${a.alert} to fire`).toBe(true);
      expect(['page', 'warning']).toContain(a.labels?.severity);
      expect(a.annotations?.summary).toBeTruthy();
      expect(a.annotations?.runbook).toBe(`docs/operations.md#${a.alert!.toLowerCase()}`);
      expect(anchors.has(a.alert!.toLowerCase()), `docs/operations.md has no "### ${a.alert}" heading`).toBe(true);
    });
  }

  it('recording rule names follow level:metric:operations', () => {
    for (const r of rules.filter((x) => x.record)) expect(r.record).toMatch(/^[a-z_]+:[a-z0-9_]+:[a-z0-9_]+$/);
  });
});
