import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { ensureCommand } from '@dv/stack';

// The Prometheus rule files (rules/*.yml, which the k8s PrometheusRules reference) and their
// promtool unit tests (tests/*.test.yml), read by test/prometheus-rules.test.ts and the dashboard
// query test.

export const PROMETHEUS_DIR = import.meta.dirname;
export const RULES_DIR = join(PROMETHEUS_DIR, 'rules');
export const RULE_TESTS_DIR = join(PROMETHEUS_DIR, 'tests');

export interface Rule {
  file: string;
  group: string;
  record?: string;
  alert?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export function ruleFiles(): string[] {
  return readdirSync(RULES_DIR)
    .filter((f) => f.endsWith('.yml'))
    .sort()
    .map((f) => join(RULES_DIR, f));
}

export function ruleTestFiles(): string[] {
  return readdirSync(RULE_TESTS_DIR)
    .filter((f) => f.endsWith('.test.yml'))
    .sort()
    .map((f) => join(RULE_TESTS_DIR, f));
}

export function loadRules(): Rule[] {
  return ruleFiles().flatMap((file) => {
    const doc = load(readFileSync(file, 'utf8')) as { groups: Array<{ name: string; rules: Array<Omit<Rule, 'file' | 'group'>> }> };
    return doc.groups.flatMap((g) => g.rules.map((r) => ({ ...r, file, group: g.name })));
  });
}

/** promtool from the Debian `prometheus` package, installed with apt when missing (like nats-server). */
export function promtoolPath(log: (msg: string) => void = () => undefined): string {
  return ensureCommand('promtool', 'prometheus', log);
}

export function prometheusPath(log: (msg: string) => void = () => undefined): string {
  return ensureCommand('prometheus', 'prometheus', log);
}

export interface ToolResult {
  status: number | null;
  output: string;
}

export function promtool(args: string[], cwd = PROMETHEUS_DIR): ToolResult {
  const r = spawnSync(promtoolPath(), args, { cwd, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, output: `${r.stdout ?? ''}${r.stderr ?? ''}` };
}
