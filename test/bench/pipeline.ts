// `npm run bench -- pipeline [--addresses 100000] [--domains 2000] [--latency 20] [--seed 1]
//   [--in-flight N (default: the scheduler's MAX_ITEMS_IN_FLIGHT default)] [--heap-mb N] [--mongo-cache-gb 4] [--metrics] [--keep] [--log debug] [--prof DIR]`
// One list job over simulated domains (Zipf sizes; ~10% catch-all, 5% greylisting, 3% dead),
// 1 scheduler and 2 probe nodes as processes, every SMTP reply and DNS answer `latency` ms late.
// First the same addresses are driven straight into the probe nodes (no scheduler, queue or
// storage: the raw rate), then through the whole pipeline. Last line: one JSON object.
import { readFileSync, rmSync } from 'node:fs';
import { join, resolve as resolvePath } from 'node:path';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { COLLECTIONS, SUBJECTS, itemId, newId, probeSessionReply, verifyItemMessageFor, verifySubjectFor, type JobDoc, type JobItemDoc, type ProbeSessionRequest } from '@dv/contracts';
import { JetStreamPublisher, connectMongo } from '@dv/runtime';
import { applySchema } from '@dv/stack';
import { PROBE_DEFAULTS } from '@dv/probe-node/defaults';
import { SCHEDULER_DEFAULTS } from '@dv/scheduler/defaults';
import { startServiceProcess, type RunningProcess } from '@dv/stack';
import { REPO_ROOT, startStack } from '@dv/stack';
import { startWorld, type DnsRecordInput, type SmtpHostSpecInput, type WorldHandle } from '@dv/world';
import { benchArgs, rng } from './lib/common.ts';
import { cpuDelta, cpuSecondsByName } from './lib/cpu.ts';

const args = benchArgs();
const N = Number(args.get('addresses') ?? 100_000);
const DOMAINS = Number(args.get('domains') ?? 2_000);
const LATENCY_MS = Number(args.get('latency') ?? 20);
const SEED = Number(args.get('seed') ?? 1);
/**
 * mongod's WiredTiger cache. The local stack's 0.25 GB (sized for tests) holds a 100,000-address
 * list; a million addresses write ~2 GB of items, latest results and cache entries, and with
 * 0.25 GB MongoDB's CPU per address rose from 0.36 to 0.6 ms as it evicted and re-read pages
 * (docs/scheduler.md). 4 GB holds it, as MongoDB's own default (half of RAM less 1 GB) would on a
 * 9 GB host.
 */
const MONGO_CACHE_GB = Number(args.get('mongo-cache-gb') ?? 4);
/** The scheduler's MAX_ITEMS_IN_FLIGHT: its default unless --in-flight says otherwise (read from its defaults, not copied). */
const IN_FLIGHT = String(args.get('in-flight') ?? SCHEDULER_DEFAULTS.maxItemsInFlight);
const GREYLIST_S = 1;
/** The ladder's first step (5 min) scaled to 2 s, past the hosts' 1 s greylisting. */
const LADDER_SCALE = 2 / 300;
const RCPTS = 20;
/** The politeness limit per (provider, source IP); with two probe nodes (two IPs) a host may see twice this. */
const PER_HOST_SESSIONS = 5;
/** Sessions a probe node runs at once (its default PROBE_MAX_CONCURRENT_SESSIONS, read from its defaults). */
const NODE_CAPACITY = PROBE_DEFAULTS.maxConcurrentSessions;
const say = (msg: string) => process.stdout.write(`${msg}\n`);

type Kind = 'normal' | 'catchall' | 'greylist' | 'nxdomain' | 'refused';
interface Domain {
  name: string;
  kind: Kind;
  mx: string;
  ip: string;
  size: number;
}

function buildWorld(): { domains: Domain[]; records: DnsRecordInput[]; hosts: SmtpHostSpecInput[]; emails: string[] } {
  const rand = rng(SEED);
  const weights = Array.from({ length: DOMAINS }, (_, i) => 1 / (i + 1));
  const total = weights.reduce((a, b) => a + b, 0);
  const sizes = weights.map((w) => Math.max(1, Math.floor((N * w) / total)));
  let diff = N - sizes.reduce((a, b) => a + b, 0);
  for (let i = 0; diff !== 0; i = (i + 1) % DOMAINS) {
    if (diff > 0) {
      sizes[i]!++;
      diff--;
    } else if (sizes[i]! > 1) {
      sizes[i]!--;
      diff++;
    }
  }
  const domains: Domain[] = [];
  const records: DnsRecordInput[] = [{ name: 'test', type: 'SOA', primary: 'ns.test', admin: 'hostmaster.test' }];
  const hosts: SmtpHostSpecInput[] = [];
  const emails: string[] = [];
  for (let i = 0; i < DOMAINS; i++) {
    const r = rand();
    const kind: Kind = r < 0.1 ? 'catchall' : r < 0.15 ? 'greylist' : r < 0.165 ? 'nxdomain' : r < 0.18 ? 'refused' : 'normal';
    const name = `b${i}.test`;
    const mx = `mx.${name}`;
    const ip = `127.${20 + Math.floor(i / 250)}.${(i % 250) + 1}.10`;
    const d: Domain = { name, kind, mx, ip, size: sizes[i]! };
    domains.push(d);
    const local = Array.from({ length: d.size }, (_, k) => `u${k}@${name}`);
    emails.push(...local);
    if (kind === 'nxdomain') continue;
    records.push({ name, type: 'MX', priority: 10, exchange: mx }, { name: mx, type: 'A', address: ip });
    if (kind === 'refused') continue; // in DNS, nothing listening: connection refused
    const mailboxes = local.filter((_, k) => k % 10 < 7);
    hosts.push({
      name: mx,
      ip,
      mailboxes,
      behaviour: { maxConcurrentSessions: PER_HOST_SESSIONS * 2, ...(kind === 'catchall' ? { catchAll: true } : {}), ...(kind === 'greylist' ? { greylistSeconds: GREYLIST_S } : {}) },
    });
  }
  // Interleave the domains as a real list would be.
  for (let i = emails.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [emails[i], emails[j]] = [emails[j]!, emails[i]!];
  }
  return { domains, records, hosts, emails };
}

/**
 * The world keeps every command and reply of every SMTP session (for tests); this bench reads only
 * its counters (sessions, politeness violations). Dropped every few seconds: at 1,000,000
 * addresses the logs grew the bench process, which runs the world, past 700 MB, and its garbage
 * collection held up simulated replies. A session still open keeps its own log (the host's
 * error count lives there).
 */
function dropWorldLogs(w: WorldHandle): void {
  for (const h of w.hosts.values()) {
    h.commands.length = 0;
    h.sessions.length = 0;
  }
}

function rssMb(pid: number | undefined): number {
  if (!pid) return 0;
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/**
 * Straight into the probe nodes: per-domain sessions of 20, at most 5 at once per (host, node),
 * and never more at once on a node than its PROBE_MAX_CONCURRENT_SESSIONS (a node answers `busy`
 * beyond it: such a session is sent again, never counted as done). A session goes to the node with
 * fewer sessions in flight; a greylist retry to the node of its first try.
 * The same catch-all probes as the pipeline: every session probes, and once a domain has proved
 * catch-all its sessions not yet started are dropped (the scheduler answers those addresses
 * risky/catch_all from its memory without a session), so the baseline does no work the pipeline
 * skips and the efficiency ratio is not flattered.
 */
async function rawProbe(nc: NatsConnection, domains: Domain[], nodes: string[]): Promise<{ seconds: number; busy: number }> {
  interface Job {
    d: Domain;
    addresses: string[];
    /** Null: any node; set for a greylist retry (the same source IP as the first try). */
    node: number | null;
  }
  const queue: Job[] = [];
  for (const d of domains) {
    if (d.kind === 'nxdomain') continue;
    const all = Array.from({ length: d.size }, (_, k) => `u${k}@${d.name}`);
    for (let i = 0; i < all.length; i += RCPTS) queue.push({ d, addresses: all.slice(i, i + RCPTS), node: null });
  }
  const catchAll = new Set<string>();
  const inflight = new Map<string, number>();
  const onNode = nodes.map(() => 0);
  let busy = 0;
  let pending = queue.length;
  const t0 = Date.now();
  const hostFree = (job: Job, n: number) => (inflight.get(`${job.d.name}|${n}`) ?? 0) < PER_HOST_SESSIONS;
  await new Promise<void>((resolve) => {
    const pump = () => {
      for (let i = 0; i < queue.length && onNode.some((a) => a < NODE_CAPACITY); ) {
        const job = queue[i]!;
        if (catchAll.has(job.d.name)) {
          queue.splice(i, 1);
          pending--;
          continue;
        }
        const choices = (job.node === null ? nodes.map((_, n) => n) : [job.node]).filter((n) => onNode[n]! < NODE_CAPACITY && hostFree(job, n));
        if (choices.length === 0) {
          i++;
          continue;
        }
        const node = choices.reduce((a, b) => (onNode[b]! < onNode[a]! ? b : a));
        const key = `${job.d.name}|${node}`;
        queue.splice(i, 1);
        inflight.set(key, (inflight.get(key) ?? 0) + 1);
        onNode[node]!++;
        const req: ProbeSessionRequest = { session_id: newId('request'), domain: job.d.name, mx_hosts: [job.d.mx], addresses: job.addresses, catch_all_probe: true, mail_from: 'verify@probe.test', source_ip: null };
        void nc
          .request(SUBJECTS.probeSession(nodes[node]!), JSON.stringify(req), { timeout: 120_000 })
          .then((m) => {
            const reply = probeSessionReply.parse(m.json());
            if (reply.outcome === 'busy') {
              // Nothing was probed: the session goes again (this should not happen within the node's capacity).
              busy++;
              pending++;
              queue.push(job);
              return;
            }
            const probe = reply.catch_all?.reply?.code;
            if (probe === 250 || probe === 251) catchAll.add(job.d.name);
            const grey = reply.results.filter((r) => r.reply?.code === 450).map((r) => r.address);
            // The same retry the scheduler makes: after the greylisting period, from the same node.
            if (grey.length > 0) {
              pending++;
              setTimeout(() => {
                queue.push({ d: job.d, addresses: grey, node });
                pump();
              }, LADDER_SCALE * 300_000);
            }
          })
          .catch(() => undefined)
          .finally(() => {
            inflight.set(key, inflight.get(key)! - 1);
            onNode[node]!--;
            pending--;
            if (pending === 0) resolve();
            else pump();
          });
      }
      // Dropped catch-all sessions may have been the last work left.
      if (pending === 0) resolve();
    };
    pump();
  });
  return { seconds: (Date.now() - t0) / 1000, busy };
}

const dataDir = join(REPO_ROOT, '.local', `bench-pipeline-${process.pid}`);
const procs: RunningProcess[] = [];
let world: WorldHandle | undefined;
const stack = await startStack({ dataDir, log: say, mongoCacheGb: MONGO_CACHE_GB });
try {
  const built = buildWorld();
  say(`world: ${DOMAINS} domains, ${N} addresses, ${built.hosts.length} MX hosts, latency ${LATENCY_MS} ms, MongoDB cache ${MONGO_CACHE_GB} GB`);
  world = await startWorld({ name: 'bench', latencyMs: LATENCY_MS, dns: { records: built.records }, smtp: { hosts: built.hosts } });
  const w = world;
  const logDropper = setInterval(() => dropWorldLogs(w), 5_000);
  logDropper.unref();
  const mongo = await connectMongo(stack.env.MONGODB_URL!, 'bench_pipeline');
  await mongo.db.dropDatabase();
  await applySchema(mongo.db);
  const logDir = join(dataDir, 'logs');
  const base = { ...stack.env, ...world.env, MONGODB_DB: 'bench_pipeline', LOG_LEVEL: 'warn' };
  // --heap-mb N: V8 heap cap of the scheduler and probe processes, as a container memory limit or
  // NODE_OPTIONS would set it in a deployment (unset: V8's default, sized from this box's RAM).
  const heapOpts = args.has('heap-mb') ? [`--max-old-space-size=${Number(args.get('heap-mb'))}`] : [];
  const nodeOptions = (): Record<string, string> => (heapOpts.length > 0 ? { NODE_OPTIONS: heapOpts.join(' ') } : {});
  // --prof DIR: a CPU profile of the scheduler and of each probe node, written when it stops. Node
  // refuses --cpu-prof in NODE_OPTIONS, so it goes on the command line: a shell execs node with it.
  const prof = args.has('prof') ? { wrap: ['sh', '-c', `exec "$0" --cpu-prof --cpu-prof-dir=${JSON.stringify(resolvePath(String(args.get('prof'))))} "$@"`] } : {};
  const probeEnv = (id: string, ip: string) => ({ ...base, ...nodeOptions(), PROBE_NODE_ID: id, PROBE_SOURCE_IPS: ip, PROBE_HELO_NAME: 'probe.test', PROBE_MAIL_FROM: 'verify@probe.test', PROBE_ALLOW_PRIVATE_MX: 'true' });
  procs.push(await startServiceProcess('probe-node', { env: probeEnv('bench-a', '127.0.0.1'), logDir, ...prof }));
  procs.push(await startServiceProcess('probe-node', { env: probeEnv('bench-b', '127.0.0.2'), logDir, ...prof }));
  // As the services connect (@dv/runtime connectNats): without noAsyncTraces every publish and
  // request builds two stack traces up front, CPU the gateway's own publishing does not spend.
  const nc = await connect({ servers: stack.env.NATS_URL, noAsyncTraces: true });

  say('raw: driving the addresses straight into the probe nodes…');
  const raw = await rawProbe(nc, built.domains, ['bench-a', 'bench-b']);
  const rawS = raw.seconds;
  const rawRate = N / rawS;
  say(`raw: ${rawS.toFixed(1)} s, ${rawRate.toFixed(0)} addresses/s${raw.busy > 0 ? ` (${raw.busy} sessions answered busy and sent again)` : ''}`);
  world.reset();

  const scheduler = await startServiceProcess('scheduler', {
    env: { ...base, ...nodeOptions(), LOG_LEVEL: args.get('log') ?? 'warn', GREYLIST_LADDER_SCALE: String(LADDER_SCALE), POLITE_SESSIONS_PER_MIN: '100000', MAX_ITEMS_IN_FLIGHT: IN_FLIGHT, FETCH_BATCH: '500' },
    logDir,
    ...prof,
  });
  procs.push(scheduler);

  // The gateway's part, untimed: job and items in MongoDB.
  const now = new Date();
  const jobId = newId('job');
  const expires = new Date(now.getTime() + 86_400_000);
  const job: JobDoc = {
    _id: jobId, account_id: 'acc_bench', key_id: 'key_bench', mode: 'live', kind: 'list', status: 'running', label: 'bench', total: N, done: 0,
    counts: { deliverable: 0, undeliverable: 0, risky: 0, unknown: 0 }, credits_charged: N, credits_refunded: 0, max_age_days: null, force_fresh: true,
    notify_email: false, max_wall_seconds: null, deadline_at: null, webhook: null, created_at: now, updated_at: now, completed_at: null, expires_at: expires,
  };
  await mongo.db.collection<JobDoc>(COLLECTIONS.jobs.name).insertOne(job);
  const items = mongo.db.collection<JobItemDoc>(COLLECTIONS.jobItems.name);
  for (let i = 0; i < N; i += 5_000) {
    await items.insertMany(
      built.emails.slice(i, i + 5_000).map((email, k) => ({
        _id: itemId(jobId, i + k), job_id: jobId, account_id: job.account_id, seq: i + k, email, ref: null, meta: null, state: 'queued' as const, result: null,
        attempts: 0, next_attempt_at: null, source_ip: null, created_at: now, updated_at: now, expires_at: expires,
      })),
      { ordered: false },
    );
  }
  say('pipeline: items stored; publishing and timing…');
  let maxRss = 0;
  const rssBy = new Map<string, number>();
  const sampler = setInterval(() => {
    for (const p of procs) {
      const mb = rssMb(p.child.pid);
      maxRss = Math.max(maxRss, mb);
      rssBy.set(p.name, Math.max(rssBy.get(p.name) ?? 0, mb));
    }
  }, 500);
  // Each progress line: the rate of that stretch and the CPU ms per address each process spent in
  // it, so a cost that grows with the run (the store, a sweep) shows as a rising figure.
  const names = new Map(procs.map((p) => [p.child.pid, p.name === 'probe-node' ? 'probe' : p.name]));
  names.set(process.pid, 'bench');
  // mongod under wine names its main thread `initandlisten`; kernel threads are summed as one.
  const label = (pid: number, comm: string) => names.get(pid) ?? (comm === 'node' ? null : comm === 'initandlisten' ? 'mongod' : /^(kworker|kdamond|ksoftirq|jbd2|rcu_)/.test(comm) ? 'kernel' : comm);
  const cpu0 = cpuSecondsByName(label);
  const t0 = Date.now();
  // Published as the gateway publishes a job's items (acks matched on one inbox).
  const js = new JetStreamPublisher(nc);
  for (let i = 0; i < N; i += 1_000) {
    await Promise.all(
      built.emails.slice(i, i + 1_000).map((email, k) => {
        const msg = verifyItemMessageFor(job, { seq: i + k, email }, new Date().toISOString());
        return js.publish(verifySubjectFor(job), JSON.stringify(msg), { msgID: itemId(jobId, i + k) });
      }),
    );
  }
  let last = { at: t0, done: 0, cpu: cpu0 };
  for (;;) {
    const j = await mongo.db.collection<JobDoc>(COLLECTIONS.jobs.name).findOne({ _id: jobId });
    if (j && Date.now() - last.at > 10_000) {
      const cpu = cpuSecondsByName(label);
      const n = j.done - last.done;
      const per = [...cpuDelta(last.cpu, cpu)].filter(([, s]) => s >= 0.1).sort((a, b) => b[1] - a[1]);
      const cost = n > 0 ? per.map(([k, s]) => `${k} ${((s * 1000) / n).toFixed(2)}`).join(', ') : '';
      say(`  ${j.done}/${N} after ${((Date.now() - t0) / 1000).toFixed(0)} s: ${((n * 1000) / (Date.now() - last.at)).toFixed(0)}/s; CPU ms per address: ${cost}`);
      last = { at: Date.now(), done: j.done, cpu };
    }
    if (j?.status === 'completed') break;
    await new Promise((r) => setTimeout(r, 250));
  }
  const pipeS = (Date.now() - t0) / 1000;
  clearInterval(sampler);
  const final = (await mongo.db.collection<JobDoc>(COLLECTIONS.jobs.name).findOne({ _id: jobId }))!;
  const doneItems = await items.countDocuments({ job_id: jobId, state: 'done' });
  const sessions = [...world.hosts.values()].reduce((a, h) => a + h.sessionsTotal, 0);
  const violations = [...world.hosts.values()].reduce((a, h) => a + h.concurrencyViolations, 0);
  const rate = N / pipeS;
  say(`max RSS by process (MB): ${JSON.stringify(Object.fromEntries([...rssBy].map(([k, v]) => [k, Math.round(v)])))}`);
  say(`pipeline: ${pipeS.toFixed(1)} s, ${rate.toFixed(0)} addresses/s; counts ${JSON.stringify(final.counts)}; ${sessions} SMTP sessions`);
  const figures = {
    addresses: N,
    domains: DOMAINS,
    latency_ms: LATENCY_MS,
    mongo_cache_gb: MONGO_CACHE_GB,
    addresses_per_s: Math.round(rate),
    raw_probe_addresses_per_s: Math.round(rawRate),
    efficiency: Math.round((rate / rawRate) * 100) / 100,
    connections_per_address: Math.round((sessions / N) * 1000) / 1000,
    politeness_violations: violations,
    max_rss_mb: Math.round(maxRss),
    lost_items: N - doneItems,
    duplicate_results: final.done - doneItems,
  };
  if (args.has('metrics')) {
    const text = await (await fetch(`${scheduler.url}/metrics`)).text();
    say(text.split('\n').filter((l) => l.startsWith('scheduler_') && !l.includes('_bucket')).join('\n'));
  }
  await nc.drain();
  await mongo.close();
  say(JSON.stringify(figures));
} finally {
  for (const p of procs.reverse()) await p.stop(5_000).catch(() => undefined);
  await world?.stop();
  await stack.stop();
  if (!args.has('keep')) rmSync(dataDir, { recursive: true, force: true });
  else say(`kept ${dataDir}`);
}
