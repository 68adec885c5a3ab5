// `npm run bench -- probe`: SMTP sessions per address and addresses per second of the probe's
// batched sessions (20 RCPTs per session) against the usual open-source way (one session per
// address); PIPELINING is on in both, so the ratio measures batching alone, not a handicapped
// baseline. On the simulated world at 0 and 50 ms of
// added reply latency. Same address set, same politeness cap (5 concurrent sessions per MX host,
// ZoneMTA's), same client code; the world runs in a child process so CPU figures are the probe's.
// Last line: one JSON object with the figures at 50 ms.
import type { ProbeSessionRequest } from '@dv/contracts';
import { probeConfigSchema } from '@dv/probe-node/config';
import { createResolver } from '@dv/probe-node/bench';
import { runSession } from '@dv/probe-node/bench';
import { perKeyLimit } from './lib/limit.ts';
import { startWorldProcess } from './lib/world-process.ts';

const ADDRESSES_PER_DOMAIN = 100;
const BATCH = 20;
const SESSIONS_PER_HOST = 5;
const LATENCIES_MS = [0, 50];

// Well-behaved domains of the default world (no greylisting, rate limits, tarpits or hostility,
// which would measure the world rather than the client), with their MX hosts in preference order.
const DOMAINS: Record<string, string[]> = {
  'acme.test': ['mx1.acme.test'], // STARTTLS offered
  'starttls.test': ['mx.starttls.test'], // STARTTLS required
  'catchall.test': ['mx.catchall.test'],
  'acceptall.test': ['mx.acceptall.test'],
  'noverify.test': ['mx.noverify.test'],
  'blocked.test': ['mx.blocked.test'],
  'aonly.test': ['aonly.test'],
  'fallback.test': ['mx1.fallback.test', 'mx2.fallback.test'], // first MX refuses connections
};
const KNOWN = ['alice', 'bob', 'sales', 'carol', 'postmaster', 'user', 'info', 'real'];

function addressSet(): Map<string, string[]> {
  const set = new Map<string, string[]>();
  for (const domain of Object.keys(DOMAINS)) {
    set.set(domain, Array.from({ length: ADDRESSES_PER_DOMAIN }, (_, i) => `${i < KNOWN.length ? KNOWN[i] : `person.${i}`}@${domain}`));
  }
  return set;
}

interface ModeResult {
  mode: string;
  latencyMs: number;
  addresses: number;
  sessions: number;
  connections: number;
  wallS: number;
  cpuS: number;
  outcomes: Record<string, number>;
  answered: number;
}

async function runMode(mode: 'batched' | 'baseline', latencyMs: number, env: Record<string, string>): Promise<ModeResult> {
  const config = probeConfigSchema.parse({ ...env, PROBE_PIPELINING: 'true', PROBE_HELO_NAME: 'probe.test', PROBE_ALLOW_PRIVATE_MX: 'true' });
  const resolver = createResolver({ servers: config.DNS_SERVERS, timeoutMs: 5_000 });
  const limit = perKeyLimit(SESSIONS_PER_HOST);
  const size = mode === 'batched' ? BATCH : 1;
  const jobs: { domain: string; addresses: string[] }[] = [];
  for (const [domain, addresses] of addressSet()) {
    for (let i = 0; i < addresses.length; i += size) jobs.push({ domain, addresses: addresses.slice(i, i + size) });
  }
  const result: ModeResult = { mode, latencyMs, addresses: 0, sessions: jobs.length, connections: 0, wallS: 0, cpuS: 0, outcomes: {}, answered: 0 };
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(
    jobs.map(({ domain, addresses }, n) =>
      limit(DOMAINS[domain]![0]!, async () => {
        const req: ProbeSessionRequest = { session_id: `b${n}`, domain, mx_hosts: DOMAINS[domain]!, addresses, catch_all_probe: true, mail_from: 'verify@probe.test', source_ip: null };
        const { reply } = await runSession(req, { config, nodeId: 'bench', resolver });
        result.addresses += addresses.length;
        result.connections += reply.connections ?? 0;
        result.outcomes[reply.outcome] = (result.outcomes[reply.outcome] ?? 0) + 1;
        result.answered += reply.results.filter((r) => r.state === 'replied' || r.state === 'skipped_catch_all').length;
      }),
    ),
  );
  result.wallS = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  result.cpuS = (cpu.user + cpu.system) / 1e6;
  return result;
}

const round = (n: number, digits = 3): number => Number(n.toFixed(digits));
const results: ModeResult[] = [];
for (const latencyMs of LATENCIES_MS) {
  const world = await startWorldProcess(latencyMs);
  try {
    // Warm-up session: the world generates its TLS certificate on first use.
    await runMode('batched', latencyMs, world.env).catch(() => undefined);
    results.push(await runMode('batched', latencyMs, world.env));
    results.push(await runMode('baseline', latencyMs, world.env));
  } finally {
    await world.stop();
  }
}

process.stdout.write('mode      latency  addresses  sessions  connections  conn/addr  wall_s  addr/s   cpu_s/1000  answered  outcomes\n');
for (const r of results) {
  process.stdout.write(
    `${r.mode.padEnd(9)} ${`${r.latencyMs} ms`.padStart(7)}  ${String(r.addresses).padStart(9)}  ${String(r.sessions).padStart(8)}  ${String(r.connections).padStart(11)}  ${round(r.connections / r.addresses).toFixed(3).padStart(9)}  ${r.wallS.toFixed(2).padStart(6)}  ${(r.addresses / r.wallS).toFixed(0).padStart(6)}   ${((r.cpuS * 1000) / r.addresses).toFixed(3).padStart(10)}  ${String(r.answered).padStart(8)}  ${JSON.stringify(r.outcomes)}\n`,
  );
}
const at = (mode: string, latencyMs: number): ModeResult => results.find((r) => r.mode === mode && r.latencyMs === latencyMs)!;
const batched = at('batched', 50);
const baseline = at('baseline', 50);
const perS = (r: ModeResult): number => r.addresses / r.wallS;
process.stdout.write(
  `${JSON.stringify({
    bench: 'probe',
    latency_ms: 50,
    addresses: batched.addresses,
    rcpts_per_session: BATCH,
    sessions_per_host: SESSIONS_PER_HOST,
    connections_per_address: round(batched.connections / batched.addresses, 4),
    baseline_connections_per_address: round(baseline.connections / baseline.addresses, 4),
    connections_ratio: round(baseline.connections / batched.connections, 2),
    addresses_per_s: round(perS(batched), 1),
    baseline_addresses_per_s: round(perS(baseline), 1),
    throughput_ratio: round(perS(batched) / perS(baseline), 2),
    cpu_s_per_1000_addresses: round((batched.cpuS * 1000) / batched.addresses, 3),
    baseline_cpu_s_per_1000_addresses: round((baseline.cpuS * 1000) / baseline.addresses, 3),
    throughput_ratio_at_0ms: round(perS(at('batched', 0)) / perS(at('baseline', 0)), 2),
  })}\n`,
);
