// Writes infra/grafana/dashboards/*.json from dashboards.ts: `node infra/grafana/generate.ts`.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dashboardFiles } from './dashboards.ts';

const dir = join(import.meta.dirname, 'dashboards');
mkdirSync(dir, { recursive: true });
for (const { file, text } of dashboardFiles()) {
  writeFileSync(join(dir, file), text);
  process.stdout.write(`wrote ${join('infra/grafana/dashboards', file)}\n`);
}
