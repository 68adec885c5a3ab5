// `npm run bench -- portfolio [--domains 100000] [--latency 20] [--seed 1] [--scan-concurrency N]
//   [--resolver-qps N] [--first-sweep full|targeted] [--heap-mb 224] [--mongo-cache-gb 4] [--cpu-prof] [--keep]`
// (--cpu-prof: V8 CPU profiles of the workers in <data dir>/profiles, kept with --keep)
// The portfolio scanner at scale: generated domains (lib/portfolio-world.ts) served by
// nsd on loopback, behind a UDP proxy adding `latency` ms per query (lib/udp-delay-proxy.ts: no
// netem here) that also records the query stream, queries in flight and queries/s per operator.
// Two worker processes (PORTFOLIO_ROLE=worker) scan the domains a bench account watches: a first
// full scan (full DKIM sweep), then, with 1% of the zones changed and the workers restarted
// (fresh caches), a rescan pass. Then, in the same run: dnsperf replaying each pass's own query
// stream through the proxy at the pass's concurrency (p99 of queries in flight): the DNS
// ceiling; nsd's own ceiling (dnsperf straight at it); the straightforward scanner
// (lib/naive-scanner.ts). Headline figures are the rescan pass (the daily work, and the same
// lookups per domain as the straightforward scanner); first_scan_* the first full scan.
// Last line: one JSON object. Measured, not asserted.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { promises as dns } from 'node:dns';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { COLLECTIONS, STREAMS } from '@dv/contracts';
import { connectMongo } from '@dv/runtime';
import { applySchema } from '@dv/stack';
import { startServiceProcess, type RunningProcess } from '@dv/stack';
import { ensureCommand } from '@dv/stack';
import { REPO_ROOT, startStack } from '@dv/stack';
import { findFreePort } from '@dv/world';
import { addDomains } from '@dv/portfolio-scanner/admin';
import { applyChanges, generateDomains, writeNsdFiles } from './lib/portfolio-world.ts';
import { naiveScan } from './lib/naive-scanner.ts';
import { operatorVerdict, type PassRates } from './lib/operator-rates.ts';
import { portfolioStoreCeiling } from './lib/portfolio-store-ceiling.ts';
import { histogram, queriesWithRcode, scrapeWorkers, storedScans, udpReceiveBufferErrors } from './lib/worker-metrics.ts';
import { PORTFOLIO_DEFAULTS } from '@dv/portfolio-scanner/defaults';
import { benchArgs } from './lib/common.ts';
import { cpuDelta, cpuSecondsByName } from './lib/cpu.ts';

const args = benchArgs();
const N = Number(args.get('domains') ?? 100_000);
const LATENCY_MS = Number(args.get('latency') ?? 20);
const SEED = Number(args.get('seed') ?? 1);
const CHANGED_FRACTION = 0.01;
const NAIVE_PARALLEL = 64;
const NAIVE_MAX_S = 30;
const DNSPERF_S = 10;
const DUPLICATE_WINDOW_MS = STREAMS.find((st) => st.name === 'PORTFOLIO')?.duplicateWindowMs ?? 120_000;
/** The bench's one resolver is the proxy in front of nsd: its budget is what it was measured to carry
 * (a deployment sets PORTFOLIO_DNS_RESOLVER_QPS to what its own recursive resolvers carry). */
const RESOLVER_QPS = args.has('resolver-qps') ? Number(args.get('resolver-qps')) : null;
/** `targeted`: the first pass scans as if a full DKIM sweep had just been made (last_full_dkim_at set
 * before it), i.e. the vendor selectors only: a 100,000-domain run takes ~35 min (the full sweep is
 * ~220 more queries per domain). The rescan (the headline) is the same either way. */
const FIRST_SWEEP = args.get('first-sweep') ?? 'full';
/** Worker V8 limits, as a deployment sets NODE_OPTIONS (V8's default heap limit on this host is 4 GB
 * and garbage is collected lazily up to it). */
const HEAP_MB = Number(args.get('heap-mb') ?? 224);
/**
 * mongod's WiredTiger cache, as the prod overlay sets it (docs/operations.md). The local stack's
 * 0.25 GB is sized for tests: 100,000 domains hold ~330 MB of corpus, summaries and indexes (10x
 * collStats at 10,000), and every store touches a document anywhere in them, so with 0.25 GB
 * mongod evicted and re-read pages all through the passes and the bench measured that (as the
 * pipeline bench did at a million addresses: test/bench/pipeline.ts).
 */
const MONGO_CACHE_GB = Number(args.get('mongo-cache-gb') ?? 4);
/** A pass that makes no progress for this long is over; what is left is lost. */
const STALL_S = 120;
const ACCOUNT = 'acct_bench_portfolio';
const say = (msg: string) => process.stdout.write(`${msg}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const round = (n: number, d = 2) => Math.round(n * 10 ** d) / 10 ** d;

interface ProxyReport extends PassRates {
  queries: number;
  captured: number;
  inflightMean: number;
  inflightP99: number;
  inflightMax: number;
  rcodes: Record<string, number>;
  /** The proxy's own event-loop delay: how late it may have timed an arrival. */
  lagP99Ms: number;
  lagMaxMs: number;
}

function startProxy(port: number, upstream: number, opFile: string): Promise<{ child: ChildProcess; ask: (m: object) => Promise<unknown> }> {
  const child = spawn(process.execPath, [join(import.meta.dirname, 'lib/udp-delay-proxy.ts'), String(port), String(upstream), String(LATENCY_MS), opFile], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const ask = (m: object) =>
    new Promise<unknown>((resolve) => {
      child.once('message', resolve);
      child.send(m);
    });
  return new Promise((resolve, reject) => {
    child.once('message', () => resolve({ child, ask }));
    child.once('exit', (code) => reject(new Error(`proxy exited ${code}`)));
  });
}

async function waitAnswer(server: string, name: string, type: 'MX' | 'TXT', want: (s: string) => boolean, timeoutS = 120): Promise<void> {
  const r = new dns.Resolver({ timeout: 500, tries: 1 });
  r.setServers([server]);
  for (let i = 0; i < timeoutS * 4; i++) {
    const got = await (type === 'MX' ? r.resolveMx(name).then((m) => m.map((x) => x.exchange).join(',')) : r.resolveTxt(name).then((t) => t.map((x) => x.join('')).join(','))).catch(() => '');
    if (want(got)) return;
    await sleep(250);
  }
  throw new Error(`${server} never answered ${name} ${type} as expected`);
}

function dnsperf(port: number, file: string, outstanding: number, seconds: number): number {
  const r = spawnSync('dnsperf', ['-s', '127.0.0.1', '-p', String(port), '-d', file, '-c', '4', '-T', '1', '-q', String(Math.max(1, outstanding)), '-l', String(seconds), '-t', '3'], { encoding: 'utf8' });
  const qps = Number(/Queries per second:\s+([\d.]+)/.exec(r.stdout)?.[1]);
  if (!Number.isFinite(qps)) throw new Error(`dnsperf failed: ${r.stderr || r.stdout}`);
  return qps;
}

const loadavg = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

function rssMb(pid: number | undefined, field: 'VmRSS' | 'VmHWM'): number {
  try {
    const kb = Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
    return kb / 1024;
  } catch {
    return 0;
  }
}

ensureCommand('nsd', 'nsd', say);
ensureCommand('dnsperf', 'dnsperf', say);
const dataDir = join(REPO_ROOT, '.local', `bench-portfolio-${process.pid}`);
const zoneDir = join(dataDir, 'zones');
mkdirSync(zoneDir, { recursive: true });
const procs: RunningProcess[] = [];
let nsd: ChildProcess | undefined;
let proxy: ChildProcess | undefined;
const stack = await startStack({ dataDir, log: say, mongoCacheGb: MONGO_CACHE_GB });
try {
  const domains = generateDomains(N, SEED);
  const nsdPort = await findFreePort();
  const proxyPort = await findFreePort();
  let t = performance.now();
  const { conf, operators } = writeNsdFiles(zoneDir, domains, nsdPort);
  const opFile = join(dataDir, 'operators.json');
  writeFileSync(opFile, JSON.stringify(operators));
  const mix = (k: string) => domains.filter((d) => d.mail === k).length;
  say(`world: ${N} domains (google ${mix('google')}, m365 ${mix('m365')}, gateways ${mix('mimecast') + mix('proofpoint')}, self-hosted ${mix('self')}; DMARC ${domains.filter((d) => d.dmarcP).length}), ${new Set(Object.values(operators).map((o) => o.key)).size} operators; MongoDB cache ${MONGO_CACHE_GB} GB; zones written in ${round((performance.now() - t) / 1000, 1)} s`);
  t = performance.now();
  nsd = spawn('nsd', ['-d', '-c', conf], { stdio: ['ignore', 'ignore', 'inherit'] });
  const nsdServer = `127.0.0.1:${nsdPort}`;
  await waitAnswer(nsdServer, domains[N - 1]!.name, 'MX', (s) => s !== '', 600);
  say(`nsd: serving ${Object.keys(operators).length} zones on ${nsdServer} (loaded in ${round((performance.now() - t) / 1000, 1)} s)`);
  const p = await startProxy(proxyPort, nsdPort, opFile);
  proxy = p.child;
  // The resolver budget: the proxy's measured ceiling (apex questions of the domains, 2,000 in flight).
  const warmFile = join(dataDir, 'warm.txt');
  writeFileSync(warmFile, `${domains.slice(0, 20_000).flatMap((d) => [`${d.name} A`, `${d.name} MX`, `${d.name} TXT`]).join('\n')}\n`);
  const resolverQps = RESOLVER_QPS ?? Math.floor(dnsperf(proxyPort, warmFile, 2000, 3));
  say(`resolver budget (PORTFOLIO_DNS_RESOLVER_QPS): ${resolverQps} q/s${RESOLVER_QPS ? ' (--resolver-qps)' : ' (the proxy\'s measured ceiling)'}; load average ${loadavg()}`);
  const phase = async (name: string, capture: boolean) => void (await p.ask({ phase: name, capture }));
  const report = async (file = '') => (await p.ask({ report: file })) as ProxyReport;

  const mongo = await connectMongo(stack.env.MONGODB_URL!, 'bench_portfolio');
  await mongo.db.dropDatabase();
  await applySchema(mongo.db);
  const corpus = mongo.db.collection(COLLECTIONS.portfolioCorpus.name);
  t = performance.now();
  for (let i = 0; i < N; i += 1000) await addDomains(mongo.db, ACCOUNT, domains.slice(i, i + 1000).map((d) => d.name), { intervalS: 86_400 });
  say(`corpus: ${N} domains added to ${ACCOUNT} in ${round((performance.now() - t) / 1000, 1)} s`);

  const logDir = join(dataDir, 'logs');
  const workerEnv = (intervalS: number) => ({
    ...stack.env,
    MONGODB_DB: 'bench_portfolio',
    LOG_LEVEL: 'warn',
    PORTFOLIO_ROLE: 'worker',
    DNS_SERVERS: `127.0.0.1:${proxyPort}`,
    // Nothing answers here: registration lookups fail fast instead of reaching the internet.
    RDAP_BOOTSTRAP_URL: 'http://127.0.0.1:9/',
    PORTFOLIO_RESCAN_INTERVAL_S: String(intervalS),
    PORTFOLIO_DNS_RESOLVER_QPS: String(resolverQps),
    NODE_OPTIONS: `--max-semi-space-size=16 --max-old-space-size=${HEAP_MB}${args.has('cpu-prof') ? ` --cpu-prof --cpu-prof-dir=${join(dataDir, 'profiles')}` : ''}`,
    ...(args.has('scan-concurrency') ? { PORTFOLIO_SCAN_CONCURRENCY: String(Number(args.get('scan-concurrency'))) } : {}),
  });
  let maxRss = 0;
  const rssTimer = setInterval(() => {
    for (const w of procs) maxRss = Math.max(maxRss, rssMb(w.child.pid, 'VmRSS'));
  }, 1000);

  /** Runs a pass: until every domain has scan_count >= want (or no progress for STALL_S). */
  const pass = async (label: string, want: number, since: Date): Promise<{ seconds: number; done: number }> => {
    const start = performance.now();
    // One reading of the whole box, the bench's own processes named by role (the rest by process name).
    const workerPids = new Set(procs.map((w) => w.child.pid));
    const byRole = (pid: number, comm: string) => (workerPids.has(pid) ? 'workers' : pid === proxy?.pid ? 'proxy' : pid === nsd?.pid ? 'nsd' : comm);
    const load0 = loadavg();
    const box0 = cpuSecondsByName(byRole);
    const udpDrops0 = udpReceiveBufferErrors();
    let done = 0;
    let lastProgress = performance.now();
    let lastLog = performance.now();
    while (done < N && performance.now() - lastProgress < STALL_S * 1000) {
      await sleep(N > 10_000 ? 3000 : 1000);
      // Progress from the workers' own counters (scans stored since they started, one per domain
      // in a pass); the corpus is counted only to confirm the end. Counting it on every poll (no
      // index on scan_count: a scan of the whole collection) cost MongoDB ~0.1 s a poll at 100,000.
      const stored = storedScans(await scrapeAll());
      const now = stored >= N ? await corpus.countDocuments({ scan_count: { $gte: want } }) : Math.min(stored, N - 1);
      if (now > done) lastProgress = performance.now();
      done = now;
      if (performance.now() - lastLog > 15_000) {
        say(`  ${label}: ${done}/${N} after ${round((performance.now() - start) / 1000, 0)} s`);
        lastLog = performance.now();
      }
    }
    done = await corpus.countDocuments({ scan_count: { $gte: want } });
    // The span the scans took, from the stored times (the polling adds up to a second): from the
    // first scan stored to the last, so the workers' start (10-20 s each on a busy box, sequential)
    // is not counted as scanning time; the span from the pass's start is printed beside it.
    const span = await corpus
      .aggregate<{ first: Date; last: Date }>([{ $match: { last_scanned: { $gte: since } } }, { $group: { _id: null, first: { $min: '$last_scanned' }, last: { $max: '$last_scanned' } } }])
      .toArray();
    const seconds = span[0] ? Math.max(0.001, (span[0].last.getTime() - span[0].first.getTime()) / 1000) : (performance.now() - start) / 1000;
    if (span[0]) say(`  ${label}: first scan stored ${round((span[0].first.getTime() - since.getTime()) / 1000, 1)} s after the pass began (workers starting), last ${round((span[0].last.getTime() - since.getTime()) / 1000, 1)} s`);
    for (const w of procs) maxRss = Math.max(maxRss, rssMb(w.child.pid, 'VmHWM'));
    say(`  ${label}: ${await timeline(since, seconds)}`);
    const texts = await scrapeAll();
    say(`  ${label}: ${scanDurations(texts)}`);
    const udpDrops = udpReceiveBufferErrors();
    const timeouts = queriesWithRcode(texts, 'TIMEOUT');
    say(`  ${label}: DNS queries timed out ${timeouts}; UDP datagrams dropped for a full receive buffer (whole box) ${udpDrops === null || udpDrops0 === null ? 'unknown' : udpDrops - udpDrops0}`);
    const spent = cpuDelta(box0, cpuSecondsByName(byRole));
    const cpu = { workers: spent.get('workers') ?? 0, proxy: spent.get('proxy') ?? 0, nsd: spent.get('nsd') ?? 0 };
    // Where the cores went (MongoDB runs under wine here: initandlisten, wineserver64).
    const box = [...spent].filter(([, v]) => v > 0.5).sort((a, b) => b[1] - a[1]);
    const wall = (performance.now() - start) / 1000;
    say(`  ${label}: cores busy ${round(box.reduce((a, [, v]) => a + v, 0) / wall, 2)} over ${round(wall, 0)} s: ${box.slice(0, 8).map(([k, v]) => `${k} ${round(v / wall, 2)}`).join(', ')}`);
    say(`  ${label}: CPU s per 1,000 domains: workers ${round((cpu.workers * 1000) / Math.max(1, done), 1)}, proxy ${round((cpu.proxy * 1000) / Math.max(1, done), 1)}, nsd ${round((cpu.nsd * 1000) / Math.max(1, done), 1)}; load average ${load0} at start, ${loadavg()} at end`);
    return { seconds, done };
  };
  /** Where a pass waits: per tenth of the pass, domains planned (published) and scans stored. */
  const timeline = async (since: Date, seconds: number): Promise<string> => {
    const stepMs = Math.max(1000, Math.ceil((seconds * 1000) / 10 / 1000) * 1000);
    const count = async (field: 'planned_at' | 'last_scanned') => {
      const rows = await corpus
        .aggregate<{ _id: number; n: number }>([
          { $match: { [field]: { $gte: since } } },
          { $group: { _id: { $floor: { $divide: [{ $subtract: [`$${field}`, since] }, stepMs] } }, n: { $sum: 1 } } },
        ])
        .toArray();
      const byStep = new Map(rows.map((r) => [r._id, r.n]));
      const last = Math.max(0, ...rows.map((r) => r._id));
      return Array.from({ length: last + 1 }, (_, i) => byStep.get(i) ?? 0).join(' ');
    };
    return `per ${stepMs / 1000} s from the pass's start: planned ${await count('planned_at')} | stored ${await count('last_scanned')}`;
  };
  /** Every running worker's metrics text, read once per question. */
  const scrapeAll = () => scrapeWorkers(procs.map((w) => w.url));
  /** The workers' own scan durations (DNS work only) and their queries' waits for the budgets. */
  const scanDurations = (texts: readonly string[]): string => {
    const scans = histogram(texts, 'portfolio_scan_duration_seconds');
    const waits = histogram(texts, 'portfolio_dns_budget_wait_seconds');
    const held = ['listed_operator', 'other_operator', 'worker', 'resolver'].map((by) => {
      const h = histogram(texts, 'portfolio_dns_budget_wait_seconds', by);
      return `${by} ${round((100 * h.n) / Math.max(1, waits.n), 1)}% of queries, mean ${round(1000 * h.mean, 0)} ms`;
    });
    return `scan duration mean ${round(1000 * scans.mean, 0)} ms over ${scans.n} scans (${scans.shares}); budget wait per query mean ${round(1000 * waits.mean, 1)} ms over ${waits.n} (${waits.shares}); held by ${held.join('; ')}`;
  };
  const startWorkers = async (intervalS: number) => {
    for (let i = 0; i < 2; i++) procs.push(await startServiceProcess('portfolio-scanner', { env: workerEnv(intervalS), logDir }));
  };
  const stopWorkers = async () => {
    for (const w of procs.splice(0)) await w.stop(15_000);
  };

  // 1. First full scan.
  if (FIRST_SWEEP === 'targeted') await corpus.updateMany({}, { $set: { last_full_dkim_at: new Date() } });
  await phase('first', true);
  const firstSince = new Date();
  await startWorkers(86_400);
  const first = await pass('first scan', 1, firstSince);
  const firstDns = await report(join(dataDir, 'first.txt'));
  say(`first scan: ${first.done}/${N} in ${round(first.seconds, 1)} s = ${round(first.done / first.seconds, 1)} domains/s; ${round(firstDns.queries / N, 1)} queries/domain; in flight mean ${round(firstDns.inflightMean, 1)}, p99 ${firstDns.inflightP99}; rcodes ${JSON.stringify(firstDns.rcodes)}; proxy's event-loop delay p99 ${round(firstDns.lagP99Ms, 0)} ms, max ${round(firstDns.lagMaxMs, 0)} ms`);
  await stopWorkers();

  // 2. 1% of the zones change; nsd reloads changed zone files on SIGHUP.
  const changed = applyChanges(zoneDir, domains, CHANGED_FRACTION);
  // A field the first pass could not confirm (a timeout on an overloaded box) has no previous
  // value: its rescan answer is a first observation, which by design is not a change
  // (docs "Change history"). Those pairs cannot be detected; they are counted apart.
  const unknownAfterFirst = await corpus.countDocuments({ 'unknown_fields.0': { $exists: true } });
  const changedDomains = [...new Set([...changed].map((k) => k.split(' ')[0]!))];
  const unknownOf = new Map<string, string[]>();
  for (const doc of await corpus.find({ _id: { $in: changedDomains as never[] } }, { projection: { unknown_fields: 1 } }).toArray()) unknownOf.set(String(doc._id), (doc.unknown_fields as string[] | undefined) ?? []);
  const expected = new Set([...changed].filter((k) => { const [d, f] = k.split(' '); return !unknownOf.get(d!)?.includes(f!); }));
  const unobservable = changed.size - expected.size;
  say(`first pass: ${unknownAfterFirst} domains with a field never confirmed (timeouts); ${unobservable} of the ${changed.size} changed fields were among them`);
  nsd.kill('SIGHUP');
  const probe = domains.find((d) => d.mxLabel === 'mx2');
  if (probe) await waitAnswer(nsdServer, probe.name, 'MX', (s) => s.startsWith('mx2.'));
  say(`changed: ${changed.size} fields of ${Math.round(N * CHANGED_FRACTION)} domains, ${expected.size} expected as changes; zones reloaded`);

  // 3. Rescan pass: the first scans are dated one interval back (last_slot, i.e. yesterday's scan),
  // so today's slot is a new one for every domain, and all are due now. The interval stays the
  // default (a day): a rescanned domain is due again tomorrow, not during the pass. The messages'
  // ids (domain:slot) are those of the first pass, so JetStream's duplicate window (2 min) must
  // have passed since the planner last published.
  const intervalS = 86_400;
  const [lastPlanned] = await corpus.find({ planned_at: { $ne: null } }, { projection: { planned_at: 1 } }).sort({ planned_at: -1 }).limit(1).toArray();
  const waitMs = lastPlanned ? (lastPlanned.planned_at as Date).getTime() + DUPLICATE_WINDOW_MS + 5000 - Date.now() : 0;
  if (waitMs > 0) {
    say(`waiting ${round(waitMs / 1000, 0)} s for the first pass's message ids to leave the duplicate window`);
    await sleep(waitMs);
  }
  await phase('rescan', true);
  const rescanSince = new Date();
  await corpus.updateMany({}, [{ $set: { last_slot: { $subtract: ['$last_slot', intervalS * 1000] }, planned_tick: null, next_scan_at: rescanSince } }]);
  await startWorkers(intervalS);
  const rescan = await pass('rescan', 2, rescanSince);
  const rescanDns = await report(join(dataDir, 'rescan.txt'));
  await stopWorkers();
  clearInterval(rssTimer);
  say(`rescan: ${rescan.done}/${N} in ${round(rescan.seconds, 1)} s = ${round(rescan.done / rescan.seconds, 1)} domains/s; ${round(rescanDns.queries / N, 1)} queries/domain; in flight mean ${round(rescanDns.inflightMean, 1)}, p99 ${rescanDns.inflightP99}; rcodes ${JSON.stringify(rescanDns.rcodes)}; proxy's event-loop delay p99 ${round(rescanDns.lagP99Ms, 0)} ms, max ${round(rescanDns.lagMaxMs, 0)} ms`);

  const changes = await mongo.db.collection(COLLECTIONS.portfolioChanges.name).find({ detected_at: { $gte: rescanSince } }).toArray();
  const seen = new Set(changes.map((c) => `${c.domain_name} ${c.field_name}`));
  const detected = [...seen].filter((k) => expected.has(k)).length;
  const falseChanges = changes.filter((c) => !changed.has(`${c.domain_name} ${c.field_name}`));
  const duplicates = changes.length - seen.size;
  // A change the rescan could not confirm (a timeout: never a change) is missed, not false: which, and why.
  const missed = [...expected].filter((k) => !seen.has(k));
  if (missed.length > 0) {
    const docs = await corpus.find({ _id: { $in: [...new Set(missed.map((k) => k.split(' ')[0]!))] as never[] } }, { projection: { unknown_fields: 1, scan_count: 1 } }).toArray();
    const why = new Map(docs.map((d) => [String(d._id), `scans ${d.scan_count as number}, unconfirmed ${JSON.stringify(d.unknown_fields ?? [])}`]));
    say(`missed changes (first 10): ${missed.slice(0, 10).map((k) => `${k} (${why.get(k.split(' ')[0]!) ?? 'no document'})`).join('; ')}`);
  }
  if (falseChanges.length > 0) say(`false changes (first 5): ${JSON.stringify(falseChanges.slice(0, 5).map((c) => [c.domain_name, c.field_name, c.old_value, c.new_value]))}`);

  // Per-operator rate: the busiest second of each operator over both passes, against its budget.
  const { maxQps, over, lines: operatorLines } = operatorVerdict(operators, [['first', firstDns], ['rescan', rescanDns]]);
  for (const line of operatorLines) say(line);

  // 4. The store's ceiling for a rescan's writes (the figures are its ratio), at the workers' scan places.
  const scanPlaces = args.has('scan-concurrency') ? Number(args.get('scan-concurrency')) : PORTFOLIO_DEFAULTS.scanConcurrency;
  const storeCeiling = await portfolioStoreCeiling({ db: mongo.db, workers: 2, concurrency: scanPlaces, durationS: DNSPERF_S, intervalS });
  say(`store ceiling (read + grouped store of an unchanged rescan, 2 x ${scanPlaces} callers): ${round(storeCeiling, 1)} domains/s`);

  // 5. DNS ceilings, with the workers stopped: dnsperf replays each pass's stream through the
  // proxy at that pass's p99 queries in flight; nsd straight, many in flight.
  await phase('dnsperf', false);
  const ceilingFirst = dnsperf(proxyPort, join(dataDir, 'first.txt'), Math.ceil(firstDns.inflightP99), DNSPERF_S);
  const ceilingRescan = dnsperf(proxyPort, join(dataDir, 'rescan.txt'), Math.ceil(rescanDns.inflightP99), DNSPERF_S);
  const nsdCeiling = dnsperf(nsdPort, join(dataDir, 'rescan.txt'), 256, 5);
  const proxyCeiling = dnsperf(proxyPort, join(dataDir, 'rescan.txt'), 2000, 5);
  say(`dnsperf: first-scan stream ${round(ceilingFirst, 0)} q/s at ${Math.ceil(firstDns.inflightP99)} in flight, rescan stream ${round(ceilingRescan, 0)} q/s at ${Math.ceil(rescanDns.inflightP99)}; nsd alone ${round(nsdCeiling, 0)} q/s (256 in flight); proxy at 2000 in flight ${round(proxyCeiling, 0)} q/s`);

  // 6. The straightforward scanner, through the same proxy.
  await phase('naive', false);
  const naive = await naiveScan(`127.0.0.1:${proxyPort}`, domains.map((d) => d.name), NAIVE_PARALLEL, NAIVE_MAX_S);
  say(`straightforward scanner: ${naive.scanned} domains, ${round(naive.domainsPerS, 1)} domains/s, ${round(naive.queriesPerDomain, 1)} queries/domain`);
  await mongo.close();

  const qpdFirst = firstDns.queries / N;
  const qpdRescan = rescanDns.queries / N;
  const dps = rescan.done / rescan.seconds;
  const firstDps = first.done / first.seconds;
  const ceiling = ceilingRescan / qpdRescan;
  const firstCeiling = ceilingFirst / qpdFirst;
  say(
    JSON.stringify({
      domains: N,
      latency_ms: LATENCY_MS,
      domains_per_s: round(dps, 1),
      queries_per_domain: round(qpdRescan, 1),
      dns_ceiling_domains_per_s: round(ceiling, 1),
      efficiency: round(dps / ceiling),
      naive_domains_per_s: round(naive.domainsPerS, 1),
      speedup_vs_naive: round(dps / naive.domainsPerS),
      changes_detected: detected,
      changes_expected: expected.size,
      changes_unobservable: unobservable,
      false_changes: falseChanges.length,
      duplicate_changes: duplicates,
      lost_domains: N - Math.min(first.done, rescan.done),
      max_qps_per_operator: maxQps,
      operators_over_budget: over.length,
      max_rss_mb: Math.round(maxRss),
      store_ceiling_domains_per_s: round(storeCeiling, 1),
      store_efficiency: round(dps / storeCeiling),
      resolver_qps: resolverQps,
      mongo_cache_gb: MONGO_CACHE_GB,
      first_sweep: FIRST_SWEEP,
      first_scan_domains_per_s: round(firstDps, 1),
      first_scan_queries_per_domain: round(qpdFirst, 1),
      first_scan_dns_ceiling_domains_per_s: round(firstCeiling, 1),
      first_scan_efficiency: round(firstDps / firstCeiling),
      nsd_ceiling_qps: Math.round(nsdCeiling),
      proxy_ceiling_qps: Math.round(proxyCeiling),
    }),
  );
} finally {
  for (const w of procs) await w.stop(5_000).catch(() => undefined);
  proxy?.kill('SIGTERM');
  nsd?.kill('SIGTERM');
  await stack.stop();
  if (!args.has('keep')) rmSync(dataDir, { recursive: true, force: true });
  else say(`kept ${dataDir}`);
}
