import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, waitForPort } from '@dv/stack';
import { startProcess, stopProcess, type Managed } from '@dv/stack';
import { prometheusPath } from './rules.ts';

// A throw-away Prometheus (Debian `prometheus`) on a free loopback port, scraping given targets
// every second and evaluating the given rule files as often: the dashboard query test's server.

export interface PromTarget {
  job: string;
  /** host:port */
  address: string;
}

export interface PromQueryResult {
  status: 'success' | 'error';
  error?: string;
  data?: { resultType: string; result: Array<{ metric: Record<string, string>; value?: [number, string]; values?: Array<[number, string]> }> };
}

export interface RunningPrometheus {
  url: string;
  query(expr: string): Promise<PromQueryResult>;
  queryRange(expr: string, startS: number, endS: number, stepS: number): Promise<PromQueryResult>;
  metricNames(): Promise<Set<string>>;
  stop(): Promise<void>;
}

export async function startPrometheus(o: { dataDir: string; targets: PromTarget[]; ruleFiles: string[]; intervalS?: number; log?: (m: string) => void }): Promise<RunningPrometheus> {
  const binary = prometheusPath(o.log);
  const interval = `${o.intervalS ?? 1}s`;
  mkdirSync(o.dataDir, { recursive: true });
  const config = {
    global: { scrape_interval: interval, scrape_timeout: interval, evaluation_interval: interval },
    rule_files: o.ruleFiles,
    scrape_configs: o.targets.map((t) => ({ job_name: t.job, static_configs: [{ targets: [t.address] }] })),
  };
  // JSON is YAML: no serializer needed.
  const configFile = join(o.dataDir, 'prometheus.yml');
  writeFileSync(configFile, JSON.stringify(config, null, 2));
  const port = await freePort();
  const proc: Managed = startProcess('prometheus', binary, [`--config.file=${configFile}`, `--storage.tsdb.path=${join(o.dataDir, 'tsdb')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'], o.dataDir);
  await waitForPort('127.0.0.1', port, 30_000, proc.alive);
  const url = `http://127.0.0.1:${port}`;
  const api = async (path: string, params: Record<string, string>): Promise<PromQueryResult> => {
    const res = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(params), signal: AbortSignal.timeout(10_000) });
    return (await res.json()) as PromQueryResult;
  };
  return {
    url,
    query: (expr) => api('/api/v1/query', { query: expr }),
    queryRange: (expr, startS, endS, stepS) => api('/api/v1/query_range', { query: expr, start: String(startS), end: String(endS), step: String(stepS) }),
    async metricNames() {
      const res = (await (await fetch(`${url}/api/v1/label/__name__/values`)).json()) as { data: string[] };
      return new Set(res.data);
    },
    stop: () => stopProcess(proc),
  };
}
