// `npm run cluster -- up | down | scenario <name> [flags]` (docs/cluster.md).
//   up [--probes 3]        the cluster with the demo world's list domains; prints URLs and a key; Ctrl-C removes it
//   down                   removes whatever an earlier run left (namespaces, links, processes)
//   test                   the fault scenarios (faults.test.ts), ~10 min
//   scenario scale-out [--addresses 20000] [--domains 300] [--latency 20] [--seed 1] [--probes 1,2,3] [--sessions-per-min 120]
// Scenarios print their figures; the last line is one JSON object.
import { join } from 'node:path';
import { REPO_ROOT } from '@dv/stack';
import { startCluster } from './cluster.ts';
import { clusterCustomer } from './jobs.ts';
import { removeCluster } from './netns.ts';
import { scaleOut } from './scale-out.ts';
import { CLUSTER_PREFIX } from './topology.ts';
import { listWorld } from './worlds.ts';

const say = (msg: string) => process.stdout.write(`${msg}\n`);
const [command, ...rest] = process.argv.slice(2);

function flag(name: string, fallback: string): string {
  const i = rest.indexOf(`--${name}`);
  return i >= 0 && rest[i + 1] !== undefined ? rest[i + 1]! : fallback;
}

function num(name: string, fallback: number): number {
  const raw = flag(name, String(fallback));
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} must be a positive number, got "${raw}"`);
  return n;
}

async function main(): Promise<void> {
  if (command === 'down') {
    say(`removed ${removeCluster(CLUSTER_PREFIX)} namespaces and links`);
    return;
  }
  if (command === 'up') {
    const lw = listWorld({ addresses: 2_000, domains: 50, latencyMs: num('latency', 20) });
    const cluster = await startCluster({ world: lw.world, probes: num('probes', 3), log: say });
    const customer = await clusterCustomer(cluster);
    say('');
    say('The cluster is up:');
    for (const s of cluster.services) say(`  ${s.name.padEnd(11)} on ${s.host.padEnd(7)} ${s.proc.url}`);
    say(`  world stats  ${cluster.worldControl}/stats`);
    say(`  live key (enterprise plan): ${customer.key}`);
    say(`  try: curl -H "Authorization: Bearer ${customer.key}" -H 'content-type: application/json' -d '{"emails":["u1@c0.test","u2@c1.test"]}' ${cluster.gateways[0]}/v1/jobs`);
    say('Ctrl-C removes every host.');
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    say('removing the cluster…');
    await cluster.stop();
    return;
  }
  if (command === 'test') {
    // The fault scenarios (faults.test.ts) alone, under their own vitest config (npm test runs them after the suite).
    const { spawnSync } = await import('node:child_process');
    const r = spawnSync(process.execPath, [join(REPO_ROOT, 'node_modules/vitest/vitest.mjs'), 'run', '--config', join(REPO_ROOT, 'vitest.cluster.config.ts')], { stdio: 'inherit', cwd: REPO_ROOT });
    process.exitCode = r.status ?? 1;
    return;
  }
  if (command === 'scenario' && rest[0] === 'scale-out') {
    const figures = await scaleOut({
      addresses: num('addresses', 20_000),
      domains: num('domains', 300),
      latencyMs: num('latency', 20),
      seed: num('seed', 1),
      probeCounts: flag('probes', '1,2,3').split(',').map(Number),
      sessionsPerMinute: num('sessions-per-min', 120),
      log: say,
    });
    say(JSON.stringify(figures));
    return;
  }
  say('usage: npm run cluster -- up [--probes N] | down | scenario scale-out [--addresses N] [--domains N] [--latency MS] [--probes 1,2,3]');
  process.exitCode = 2;
}

main().catch((err: unknown) => {
  process.stderr.write(`cluster: ${(err as Error).message}\n`);
  removeCluster(CLUSTER_PREFIX);
  process.exit(1);
});
