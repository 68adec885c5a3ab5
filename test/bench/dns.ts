// `npm run bench -- dns`: the mailsec engine's DNS figures, in one run, loopback only.
//
// 1. Wire throughput: the engine's DnsResolver (cache off, distinct names) and dnsperf, taking
//    turns, against the same nsd serving a generated zone of BENCH.zoneNames names, at the same
//    number of outstanding queries and sockets, both with EDNS0 + DO, dnsperf with one worker
//    thread (-T 1, like Node's one event loop), nsd as one process (server-count 1). Medians of
//    the rounds; qps_ratio = resolver / dnsperf. The resolver runs as the engine runs it: with the
//    udp_batch addon (recvmmsg/sendmmsg) when it is built, else over node:dgram (the JSON line says
//    which). For context, each round also measures the resolver forced onto node:dgram, and bare
//    Node UDP (dgram sockets and the codec, no resolver) - Node's own datagram floor.
// 2. email_security_check latency on a warm cache, against the simulated world (acme.test).
// 3. A cold DKIM sweep of 300 selectors against the simulated world (median of a few runs).
// Last line printed: one JSON object. Measured, not asserted. Needs nsd and dnsperf (Debian
// packages; installed with apt-get when missing and running as root).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import dgram from 'node:dgram';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DnsResolver } from '@dv/mailsec/bench';
import { decodeMessage, encodeQuery } from '@dv/mailsec/bench';
import { createEngine } from '@dv/mailsec';
import { discoverDkim } from '@dv/mailsec';
import { DKIM_SELECTORS } from '@dv/mailsec';
import { TOOL_DEFAULTS } from '@dv/mailsec';
import { startMailsecWorld } from '@dv/mailsec/testing';
import { nsdServerConf } from './lib/common.ts';
import { findFreePort } from '@dv/world';
import { ensureCommand } from '@dv/stack';

const BENCH = {
  zoneNames: 10_000,
  /** Queries on the wire at once, for both the resolver and dnsperf. */
  outstanding: 64,
  /** UDP sockets: the resolver's pool per family, dnsperf's clients. */
  sockets: 4,
  warmupS: 2,
  /** The resolver and dnsperf take turns, so load from elsewhere on the box hits both alike. */
  wireRounds: 5,
  wireRunS: 3,
  emailSecurityRuns: 1000,
  dkimSelectors: 300,
  dkimRuns: 5,
} as const;

const log = (line: string) => process.stdout.write(`${line}\n`);

// nsd and dnsperf from Debian, installed as the launcher installs its servers (infra's ensureCommand).
// Returns nsd's path (Debian puts it in /usr/sbin); dnsperf is on PATH.
function ensureTools(): string {
  ensureCommand('dnsperf', 'dnsperf', log);
  return ensureCommand('nsd', 'nsd', log);
}

function nameAt(i: number): string {
  return `h${String(i).padStart(5, '0')}.bench.test`;
}

/** Zone, nsd.conf and dnsperf query file in a fresh temp dir. */
function writeFiles(dir: string, port: number): { conf: string; queries: string } {
  const zone = [
    '$TTL 300',
    'bench.test. IN SOA ns1.bench.test. hostmaster.bench.test. 1 3600 600 604800 300',
    'bench.test. IN NS ns1.bench.test.',
    'ns1.bench.test. IN A 127.0.0.1',
  ];
  for (let i = 0; i < BENCH.zoneNames; i++) zone.push(`${nameAt(i)}. IN A 192.0.2.${i % 250}`);
  writeFileSync(join(dir, 'bench.test.zone'), `${zone.join('\n')}\n`);
  const conf = join(dir, 'nsd.conf');
  writeFileSync(
    conf,
    [
      ...nsdServerConf(dir, port),
      'zone:',
      '  name: bench.test',
      '  zonefile: bench.test.zone',
      '',
    ].join('\n'),
  );
  const queries = join(dir, 'queries.txt');
  writeFileSync(queries, `${Array.from({ length: BENCH.zoneNames }, (_, i) => `${nameAt(i)} A`).join('\n')}\n`);
  return { conf, queries };
}

async function waitForServer(server: string): Promise<void> {
  const r = new DnsResolver({ servers: [server], timeoutMs: 200, retries: 0, cacheMaxEntries: 0 });
  try {
    for (let i = 0; i < 50; i++) {
      if ((await r.resolve(nameAt(0), 'A')).rcode === 'NOERROR') return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error('nsd did not start answering');
  } finally {
    r.close();
  }
}

/** Resolver throughput: BENCH.outstanding workers over distinct names, cache off. */
function resolverBench(server: string, udpTransport: 'auto' | 'dgram'): { run(seconds: number): Promise<{ qps: number; errors: number }>; close(): void; transport: string } {
  const r = new DnsResolver({ servers: [server], cacheMaxEntries: 0, maxOutstanding: BENCH.outstanding, poolSize: BENCH.sockets, timeoutMs: 2000, retries: 0, udpTransport });
  let next = 0;
  return {
    async run(seconds) {
      const endAt = performance.now() + seconds * 1000;
      const start = performance.now();
      let done = 0;
      let errors = 0;
      const worker = async () => {
        while (performance.now() < endAt) {
          const res = await r.resolve(nameAt(next++ % BENCH.zoneNames), 'A');
          if (res.rcode !== 'NOERROR') errors++;
          done++;
        }
      };
      await Promise.all(Array.from({ length: BENCH.outstanding }, worker));
      return { qps: done / ((performance.now() - start) / 1000), errors };
    },
    close: () => r.close(),
    transport: r.stats().udpTransport,
  };
}

/**
 * For context, not part of the ratio: Node's own UDP floor on this machine, i.e. the same sockets,
 * concurrency and codec with no resolver around them (no ids, timers, retries, cache, promises).
 */
async function rawUdpQps(port: number, seconds: number): Promise<number> {
  const sockets = Array.from({ length: BENCH.sockets }, () => dgram.createSocket('udp4'));
  await Promise.all(sockets.map((s) => new Promise<void>((resolve) => s.connect(port, '127.0.0.1', () => resolve()))));
  let next = 0;
  let done = 0;
  const send = (s: dgram.Socket) => s.send(encodeQuery({ id: next & 0xffff, name: nameAt(next++ % BENCH.zoneNames), type: 'A', edns: { udpPayloadSize: 1232, dnssecOk: true } }));
  for (const s of sockets) {
    s.on('message', (msg) => {
      decodeMessage(msg, { maxRecords: 100 });
      done++;
      send(s);
    });
  }
  const start = performance.now();
  for (let i = 0; i < BENCH.outstanding; i++) send(sockets[i % sockets.length] as dgram.Socket);
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  const qps = done / ((performance.now() - start) / 1000);
  for (const s of sockets) {
    s.removeAllListeners('message');
    s.close();
  }
  return qps;
}

function dnsperfQps(port: number, queries: string, seconds: number): { qps: number; lost: string } {
  const args = ['-s', '127.0.0.1', '-p', String(port), '-d', queries, '-c', String(BENCH.sockets), '-T', '1', '-q', String(BENCH.outstanding), '-l', String(seconds), '-D', '-t', '2'];
  const r = spawnSync('dnsperf', args, { encoding: 'utf8' });
  const qps = Number(/Queries per second:\s+([\d.]+)/.exec(r.stdout)?.[1]);
  if (!Number.isFinite(qps)) throw new Error(`dnsperf failed: ${r.stderr || r.stdout}`);
  return { qps, lost: /Queries lost:\s+(.*)/.exec(r.stdout)?.[1]?.trim() ?? '?' };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;
const round0 = (n: number) => Math.round(n);

async function wireBench(): Promise<{ resolver: number; dnsperf: number; dgram: number; transport: string }> {
  const nsdPath = ensureTools();
  const dir = mkdtempSync(join(tmpdir(), 'dv-bench-nsd-'));
  let nsd: ChildProcess | undefined;
  try {
    const port = await findFreePort();
    const { conf, queries } = writeFiles(dir, port);
    nsd = spawn(nsdPath, ['-d', '-c', conf], { stdio: ['ignore', 'ignore', 'pipe'] });
    let nsdErr = '';
    nsd.stderr?.on('data', (c: Buffer) => (nsdErr += c.toString()));
    await waitForServer(`127.0.0.1:${port}`).catch((e: Error) => {
      throw new Error(`${e.message}: ${nsdErr}`);
    });
    log(`nsd 127.0.0.1:${port}, ${BENCH.zoneNames} names; ${BENCH.outstanding} outstanding queries, ${BENCH.sockets} sockets; ${BENCH.wireRounds} rounds of ${BENCH.wireRunS} s each`);
    const bench = resolverBench(`127.0.0.1:${port}`, 'auto');
    const overDgram = resolverBench(`127.0.0.1:${port}`, 'dgram');
    log(`resolver UDP transport: ${bench.transport}${bench.transport === 'dgram' ? ' (udp_batch addon not built: packages/mailsec/native)' : ' (udp_batch addon)'}`);
    const ours: number[] = [];
    const theirs: number[] = [];
    const dgrams: number[] = [];
    const floors: number[] = [];
    try {
      await bench.run(BENCH.warmupS);
      await overDgram.run(BENCH.warmupS);
      for (let round = 1; round <= BENCH.wireRounds; round++) {
        const resolver = await bench.run(BENCH.wireRunS);
        const perf = dnsperfQps(port, queries, BENCH.wireRunS);
        const dgramOnly = await overDgram.run(BENCH.wireRunS);
        const floor = await rawUdpQps(port, BENCH.wireRunS);
        ours.push(resolver.qps);
        theirs.push(perf.qps);
        dgrams.push(dgramOnly.qps);
        floors.push(floor);
        log(
          `round ${round}: resolver ${round0(resolver.qps)} qps (${resolver.errors} non-NOERROR), dnsperf ${round0(perf.qps)} qps (lost ${perf.lost}), ` +
            `resolver over dgram ${round0(dgramOnly.qps)} qps (${dgramOnly.errors} non-NOERROR), bare Node UDP ${round0(floor)} qps`,
        );
      }
    } finally {
      bench.close();
      overDgram.close();
    }
    log(
      `medians: resolver ${round0(median(ours))}, dnsperf ${round0(median(theirs))}, resolver over dgram ${round0(median(dgrams))}, bare Node UDP ${round0(median(floors))} qps ` +
        `(the dgram floor is ${round(median(floors) / median(theirs), 2)} of dnsperf; resolver over dgram ${round(median(dgrams) / median(theirs), 2)})`,
    );
    return { resolver: median(ours), dnsperf: median(theirs), dgram: median(dgrams), transport: bench.transport };
  } finally {
    if (nsd && nsd.exitCode === null) {
      const exited = new Promise((resolve) => nsd?.once('exit', resolve));
      nsd.kill('SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 3000))]);
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

async function worldBench(): Promise<{ p50: number; p99: number; dkimMs: number }> {
  const world = await startMailsecWorld();
  const engine = createEngine({ dnsServers: [world.dns.server], allowPrivateTargets: true });
  try {
    for (let i = 0; i < 20; i++) await engine.run('email_security_check', { target: 'acme.test' });
    const times: number[] = [];
    for (let i = 0; i < BENCH.emailSecurityRuns; i++) {
      const t0 = performance.now();
      await engine.run('email_security_check', { target: 'acme.test' });
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    const p50 = percentile(times, 50);
    const p99 = percentile(times, 99);
    log(`email_security_check (warm, ${BENCH.emailSecurityRuns} runs): p50 ${round(p50, 3)} ms, p99 ${round(p99, 3)} ms`);

    const selectors = DKIM_SELECTORS.slice(0, BENCH.dkimSelectors);
    const sweeps: number[] = [];
    for (let i = 0; i < BENCH.dkimRuns; i++) {
      const resolver = new DnsResolver({ servers: [world.dns.server] });
      const t0 = performance.now();
      const found = await discoverDkim('senders.test', resolver, { selectors, concurrency: TOOL_DEFAULTS.dkimConcurrency });
      sweeps.push(performance.now() - t0);
      resolver.close();
      if (found.selectorsTried !== BENCH.dkimSelectors || found.failed.length > 0) throw new Error(`DKIM sweep incomplete: ${found.selectorsTried} tried, ${found.failed.length} failed`);
    }
    const dkimMs = [...sweeps].sort((a, b) => a - b)[Math.floor(sweeps.length / 2)] as number;
    log(`DKIM sweep (${BENCH.dkimSelectors} selectors, cold cache, concurrency ${TOOL_DEFAULTS.dkimConcurrency}): ${sweeps.map((s) => round(s, 0)).join(', ')} ms; median ${round(dkimMs, 0)} ms`);
    return { p50, p99, dkimMs };
  } finally {
    await engine.close();
    await world.stop();
  }
}

const wire = await wireBench();
const world = await worldBench();
const summary = {
  resolver_qps: round(wire.resolver, 0),
  dnsperf_qps: round(wire.dnsperf, 0),
  qps_ratio: round(wire.resolver / wire.dnsperf, 3),
  resolver_transport: wire.transport,
  resolver_dgram_qps: round(wire.dgram, 0),
  email_security_p50_ms: round(world.p50, 3),
  email_security_p99_ms: round(world.p99, 3),
  dkim_sweep_ms: round(world.dkimMs, 1),
};
log(JSON.stringify(summary));
