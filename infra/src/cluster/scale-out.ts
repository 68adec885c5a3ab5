// Scenario 1 (docs/cluster.md): the same list verified with 1, 2 and then 3 probe hosts (2 source addresses
// each), every per-(provider, source IP) politeness limit kept. Each run gets a fresh cluster (new
// store, politeness state and world), so no run inherits another's caches or pauses.
import { startCluster } from './cluster.ts';
import { clusterCustomer, storedJobFigures, submitList, violationsByProvider, waitJob, worldStats } from './jobs.ts';
import { listWorld } from './worlds.ts';

export interface ScaleOutOptions {
  addresses: number;
  domains: number;
  latencyMs: number;
  seed: number;
  probeCounts: number[];
  /**
   * POLITE_SESSIONS_PER_MIN for every provider. The table's 10-60 would make a 20,000-address run
   * take an hour; 120 keeps the providers' limits what bounds the rate (so more source addresses
   * buy more), where 600 let this 2-core box's CPU bound it first.
   */
  sessionsPerMinute: number;
  log: (msg: string) => void;
}

export interface ScaleOutRun {
  probes: number;
  seconds: number;
  addresses_per_s: number;
  violations: number;
  lost: number;
  duplicates: number;
  sessions_by_source: Record<string, number>;
  violations_by_provider: Record<string, number>;
}


export async function scaleOutRun(opts: ScaleOutOptions, probes: number): Promise<ScaleOutRun> {
  // A real list's mix: about 30% of domains on Google (one MX host, 5 sessions per source address),
  // 25% on Microsoft 365 (a tenant host each, 2 sessions and 3 RCPTs per source address for all of
  // them together), the rest self-hosted. The providers' limits are what more source addresses buy.
  const lw = listWorld({ addresses: opts.addresses, domains: opts.domains, latencyMs: opts.latencyMs, seed: opts.seed, providers: { google: 0.3, microsoft: 0.25 } });
  // The ladder's first step (5 min) scaled to 2 s, past the hosts' 1 s greylisting, as the pipeline bench does.
  const env = { GREYLIST_LADDER_SCALE: String(2 / 300), POLITE_SESSIONS_PER_MIN: String(opts.sessionsPerMinute) };
  const cluster = await startCluster({ world: lw.world, probes, log: opts.log, env });
  try {
    const customer = await clusterCustomer(cluster);
    const job = await submitList(cluster.gateways[0]!, customer, lw.emails);
    // Timed from the job's acceptance: the gateway's intake of the list is the same for any fleet.
    const t0 = Date.now();
    let lastSay = 0;
    await waitJob(cluster.gateways, customer, job.job_id, 30 * 60_000, (j) => {
      if (Date.now() - lastSay > 10_000) {
        opts.log(`  ${j.done}/${j.total} after ${((Date.now() - t0) / 1000).toFixed(0)} s`);
        lastSay = Date.now();
      }
    });
    const seconds = (Date.now() - t0) / 1000;
    const stored = await storedJobFigures(cluster, job.job_id);
    const world = await worldStats(cluster);
    return {
      probes,
      seconds: Math.round(seconds * 10) / 10,
      addresses_per_s: Math.round((opts.addresses / seconds) * 10) / 10,
      violations: world.violations,
      lost: stored.lost,
      duplicates: stored.duplicates,
      sessions_by_source: world.sessions_by_source,
      violations_by_provider: violationsByProvider(world),
    };
  } finally {
    await cluster.stop();
  }
}

export async function scaleOut(opts: ScaleOutOptions): Promise<Record<string, number>> {
  const runs: ScaleOutRun[] = [];
  for (const probes of opts.probeCounts) {
    opts.log(`scale-out: ${opts.addresses} addresses over ${opts.domains} domains with ${probes} probe host(s)…`);
    const run = await scaleOutRun(opts, probes);
    opts.log(`  ${run.addresses_per_s} addresses/s in ${run.seconds} s; violations ${run.violations} ${JSON.stringify(run.violations_by_provider)}, lost ${run.lost}, duplicates ${run.duplicates}; sessions by source ${JSON.stringify(run.sessions_by_source)}`);
    runs.push(run);
  }
  const rate = (n: number) => runs.find((r) => r.probes === n)?.addresses_per_s ?? 0;
  const figures: Record<string, number> = {};
  for (const r of runs) figures[`addresses_per_s_${r.probes}`] = r.addresses_per_s;
  const top = Math.max(...opts.probeCounts);
  if (rate(1) > 0 && top > 1) figures[`scaling_${top}`] = Math.round((rate(top) / (top * rate(1))) * 100) / 100;
  figures.politeness_violations = runs.reduce((a, r) => a + r.violations, 0);
  figures.lost = runs.reduce((a, r) => a + r.lost, 0);
  figures.duplicates = runs.reduce((a, r) => a + r.duplicates, 0);
  return figures;
}
