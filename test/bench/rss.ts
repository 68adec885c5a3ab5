// `npm run bench -- rss [--duration 15] [--connections 16] [--domains 20000] [--job 25000] [--job-wait 120] [--heap-mb N] [--keep]`
// Resident memory of the HTTP services under a small load, for the Kubernetes requests and limits
// (docs/operations.md "Capacity"). Every service runs as a process, as `npm start` and the image
// run it (SERVICE_NODE_OPTIONS applied), against a local stack and the simulated world; gateway,
// lookup and the portfolio-scanner api and worker roles each get their own phase of load while
// /proc/<pid>/status (VmRSS every 100 ms, VmHWM at the end) is read for all of them:
//   gateway   sandbox POST /v1/verify (autocannon), GET /v1/lookup, two sandbox lists of --job addresses
//             (POST /v1/jobs), up to --job-wait s for the scheduler to finish them, their results
//             (as far as done) as csv and ndjson
//   lookup    the tools (dns, email-security, spf, dmarc, dkim, blacklist, whois, validate) on the world's
//             domains with CACHE_TTL_SECONDS=0, so every call runs the engine (autocannon)
//   portfolio-api     --domains seeded domains: every list page (limit 5000), the dashboard
//                     summary, GET /api/v1/domains/?limit=100 (autocannon)
//   portfolio-worker  a csv export of every row, then first scans of the world's domains
// Baseline in the same run: each process's RSS at rest after start (the ratio is peak ÷ rest) and a
// bare node:http server's under the same autocannon load. --heap-mb N adds
// `--max-semi-space-size=16 --max-old-space-size=N` to every service's NODE_OPTIONS after the
// launcher's (SERVICE_NODE_OPTIONS, 256), so it wins: other bounds can be compared (4096 is about
// V8's own limit on a 16-24 GB host). The last line is JSON.
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { createAccount, createPortfolioKey, setPortfolioPlan, type Account } from '@dv/accounts';
import { COLLECTIONS } from '@dv/contracts';
import { connectMongo, createLogger, connectNats } from '@dv/runtime';
import { applySchema } from '@dv/stack';
import { ensureDemoAccount } from '@dv/infra';
import { serviceNodeOptions, stackSecretsEnv, startServiceProcess, type RunningProcess, type ServiceName } from '@dv/stack';
import { REPO_ROOT, startStack } from '@dv/stack';
import { DEFAULT_WORLD_PATH, loadWorld, startWorld } from '@dv/world';
import { addDomains, requestScan } from '@dv/portfolio-scanner/admin';
import { seedPortfolio } from '@dv/portfolio-scanner/testing';
import { benchArgs } from './lib/common.ts';

const args = benchArgs();
const DURATION_S = Number(args.get('duration') ?? 15);
const CONNECTIONS = Number(args.get('connections') ?? 16);
const DOMAINS = Number(args.get('domains') ?? 20_000);
const JOB = Number(args.get('job') ?? 25_000);
const JOB_WAIT_S = Number(args.get('job-wait') ?? 120);
const EXTRA_NODE_OPTIONS = args.has('heap-mb') ? `--max-semi-space-size=16 --max-old-space-size=${Number(args.get('heap-mb'))}` : '';
const say = (msg: string) => process.stderr.write(`[bench rss] ${msg}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const load = () => loadavg().map((l) => l.toFixed(1)).join(' ');

/** A /proc/<pid>/status field in MB (0 once the process is gone). */
function statusMb(pid: number | undefined, field: 'VmRSS' | 'VmHWM'): number {
  try {
    return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;
  } catch {
    return 0;
  }
}

type Watched = 'gateway' | 'lookup' | 'portfolio-api' | 'portfolio-worker' | 'scheduler' | 'probe-node' | 'bare';
const PHASES = ['rest', 'gateway', 'lookup', 'portfolio-api', 'portfolio-worker'] as const;
type Phase = (typeof PHASES)[number];
const pids = new Map<Watched, number>();
/** Highest VmRSS seen per process per phase. */
const peaks = new Map<Watched, Record<Phase, number>>();
let phase: Phase = 'rest';
const sampler = setInterval(() => {
  for (const [name, pid] of pids) {
    const row = peaks.get(name) ?? (Object.fromEntries(PHASES.map((p) => [p, 0])) as Record<Phase, number>);
    row[phase] = Math.max(row[phase], statusMb(pid, 'VmRSS'));
    peaks.set(name, row);
  }
}, 100);

async function cannon(opts: autocannon.Options): Promise<{ rps: number; non2xx: number; errors: number }> {
  const r = await autocannon({ connections: CONNECTIONS, duration: DURATION_S, ...opts });
  return { rps: Math.round(r.requests.average), non2xx: r.non2xx, errors: r.errors + r.timeouts };
}

const dataDir = join(REPO_ROOT, '.local', `bench-rss-${process.pid}`);
say('starting NATS, Redis, MongoDB and the simulated world');
const stack = await startStack({ dataDir, log: say });
const world = await startWorld(loadWorld(DEFAULT_WORLD_PATH));
const procs: RunningProcess[] = [];
const bare = spawn(process.execPath, ['-e', `const http=require('node:http');const body=JSON.stringify({status:'ok'});http.createServer((q,s)=>{s.writeHead(200,{'content-type':'application/json','content-length':Buffer.byteLength(body)});s.end(body)}).listen(0,'127.0.0.1',function(){console.log(this.address().port)});`], { stdio: ['ignore', 'pipe', 'inherit'] });
const figures: Record<string, unknown> = {};
try {
  const dbName = 'bench_rss';
  const mongo = await connectMongo(stack.env.MONGODB_URL!, dbName);
  const db = mongo.db;
  await db.dropDatabase();
  await applySchema(db);
  const keys = await ensureDemoAccount(db);
  // Limits out of the way: a 429 costs less memory than the answer it replaces.
  await db.collection<Account>(COLLECTIONS.accounts.name).updateOne({ _id: keys.accountId }, { $set: { plan: 'enterprise', credits: 10_000_000, 'limits.requestsPerMinute': 100_000_000, 'limits.emailsPerDay': 100_000_000, 'limits.singleChecksInFlight': 100_000_000, 'limits.concurrentJobs': 1_000, 'limits.emailsPerJob': 1_000_000 } });
  const portfolioAccount = await createAccount(db, { name: 'Bench', email: `bench-${process.pid}@example.com`, plan: 'business' });
  await setPortfolioPlan(db, portfolioAccount._id, 'enterprise_max_premium');
  const portfolioKey = (await createPortfolioKey(db, portfolioAccount._id, 'bench')).key;
  let t = performance.now();
  await seedPortfolio(db, portfolioAccount._id, DOMAINS);
  say(`seeded ${DOMAINS} portfolio domains in ${((performance.now() - t) / 1000).toFixed(1)} s`);

  const env: Record<string, string> = { ...stack.env, ...world.env, ...stackSecretsEnv(dataDir), MONGODB_DB: dbName, LOG_LEVEL: 'warn', ...(EXTRA_NODE_OPTIONS ? { NODE_OPTIONS: EXTRA_NODE_OPTIONS } : {}) };
  const own: [Watched, ServiceName, Record<string, string>][] = [
    ['gateway', 'gateway', {}],
    ['lookup', 'lookup', { ALLOW_PRIVATE_TARGETS: 'true', DNSBL_ZONES: 'zen.dnsbl.test=zen.spamhaus.org', ANONYMOUS_LOOKUPS_PER_DAY: '1000000', CACHE_TTL_SECONDS: '0' }],
    ['portfolio-api', 'portfolio-scanner', { PORTFOLIO_ROLE: 'api' }],
    ['portfolio-worker', 'portfolio-scanner', { PORTFOLIO_ROLE: 'worker' }],
    // The sandbox lists are the scheduler's work; the probe node only makes the pipeline whole.
    ['scheduler', 'scheduler', { PROBE_MAIL_FROM: 'verify@probe.test' }],
    ['probe-node', 'probe-node', { PROBE_NODE_ID: 'rss-node', PROBE_SOURCE_IPS: '127.0.0.1', PROBE_HELO_NAME: 'probe.test', PROBE_MAIL_FROM: 'verify@probe.test', PROBE_ALLOW_PRIVATE_MX: 'true' }],
  ];
  const running = new Map<Watched, RunningProcess>();
  for (const [watched, service, extra] of own) {
    const p = await startServiceProcess(service, { env: { ...env, ...extra }, logDir: join(dataDir, 'logs') });
    procs.push(p);
    running.set(watched, p);
    pids.set(watched, p.child.pid!);
  }
  const barePort = await new Promise<number>((resolve) => bare.stdout!.once('data', (d: Buffer) => resolve(Number(d.toString().trim()))));
  pids.set('bare', bare.pid!);
  const url = (w: Watched) => running.get(w)!.url;
  say(`NODE_OPTIONS per service: ${own.map(([w, s, extra]) => `${w} "${[serviceNodeOptions(s, extra), EXTRA_NODE_OPTIONS].filter(Boolean).join(' ')}"`).join(', ')}`);
  await sleep(5_000);

  phase = 'gateway';
  say(`gateway phase; load average ${load()}`);
  const gw = url('gateway');
  const auth = { authorization: `Bearer ${keys.sandbox}`, 'content-type': 'application/json' };
  const bareRun = await cannon({ url: `http://127.0.0.1:${barePort}/` });
  const verifyRun = await cannon({ url: `${gw}/v1/verify`, method: 'POST', headers: auth, body: JSON.stringify({ email: 'bench@example.com', wait: 0 }) });
  const lookupRun = await cannon({ url: `${gw}/v1/lookup?email=bench@example.com`, headers: auth, duration: Math.ceil(DURATION_S / 2) });
  say(`bare ${bareRun.rps} req/s; verify ${verifyRun.rps} req/s (${verifyRun.non2xx} non-2xx); lookup ${lookupRun.rps} req/s (${lookupRun.non2xx} non-2xx)`);
  const jobIds: string[] = [];
  for (let j = 0; j < 2; j++) {
    const emails = Array.from({ length: JOB }, (_, i) => `person${i}.${j}@company${i % 997}.example.com`);
    const res = await fetch(`${gw}/v1/jobs`, { method: 'POST', headers: auth, body: JSON.stringify({ emails }) });
    const body = (await res.json()) as { job_id?: string };
    if (res.status !== 202 || !body.job_id) throw new Error(`POST /v1/jobs: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
    jobIds.push(body.job_id);
  }
  // The lists are the scheduler's work (sandbox results at its pace, slow on a loaded box): the
  // gateway's part is taking them and serving their results, complete or not after --job-wait s.
  t = performance.now();
  let done = 0;
  for (const id of jobIds) {
    for (;;) {
      const job = (await (await fetch(`${gw}/v1/jobs/${id}`, { headers: auth })).json()) as { status?: string; progress?: { processed?: number } };
      if (job.status === 'completed') {
        done += 1;
        break;
      }
      if (performance.now() - t > JOB_WAIT_S * 1000) break;
      await sleep(1_000);
    }
  }
  say(`${done} of 2 sandbox lists of ${JOB} completed after ${((performance.now() - t) / 1000).toFixed(1)} s`);
  let downloadedBytes = 0;
  for (const id of jobIds) {
    for (const format of ['csv', 'ndjson']) {
      const res = await fetch(`${gw}/v1/jobs/${id}/results?format=${format}`, { headers: auth });
      if (!res.ok) throw new Error(`results ${format}: ${res.status}`);
      downloadedBytes += (await res.arrayBuffer()).byteLength;
    }
  }
  say(`downloaded ${(downloadedBytes / 1_048_576).toFixed(1)} MB of results (csv and ndjson of both lists)`);

  phase = 'lookup';
  say(`lookup phase; load average ${load()}`);
  const lk = url('lookup');
  const targets = ['acme.test', 'catchall.test', 'fallback.test', 'nullmx.test', 'listed.test', 'greylist.test'];
  const tools = ['dns', 'email-security', 'spf', 'dmarc', 'blacklist'];
  const lookupReqs = [...targets.flatMap((d) => tools.map((tool) => ({ method: 'GET' as const, path: `/v1/${tool}/${d}` }))), { method: 'GET' as const, path: '/v1/dkim/acme.test?selector=sel1' }, { method: 'GET' as const, path: '/v1/whois/acme.test' }, { method: 'GET' as const, path: `/v1/validate?record=${encodeURIComponent('v=spf1 include:_spf.mailer.test -all')}` }];
  for (const r of lookupReqs) {
    const res = await fetch(`${lk}${r.path}`);
    await res.arrayBuffer();
    if (!res.ok) say(`  ${r.path} answers ${res.status}`);
  }
  const toolRun = await cannon({ url: lk, requests: lookupReqs });
  say(`lookup tools ${toolRun.rps} req/s (${toolRun.non2xx} non-2xx, ${toolRun.errors} errors)`);

  phase = 'portfolio-api';
  say(`portfolio-api phase; load average ${load()}`);
  const api = url('portfolio-api');
  const pauth = { authorization: `Bearer ${portfolioKey}`, 'content-type': 'application/json' };
  let pages = 0;
  for (let w = 0; w < 2; w++) {
    let next: string | undefined = `${api}/api/v1/domains/?limit=5000`;
    while (next) {
      const res: Response = await fetch(next.startsWith('http') ? next : `${api}${next}`, { headers: pauth });
      if (!res.ok) throw new Error(`list: ${res.status}`);
      next = ((await res.json()) as { meta: { next?: string } }).meta.next;
      pages += 1;
    }
  }
  for (let i = 0; i < 10; i++) await fetch(`${api}/api/v1/dashboard/summary/`, { headers: pauth }).then((r) => r.arrayBuffer());
  const listRun = await cannon({ url: `${api}/api/v1/domains/?limit=100`, headers: pauth });
  say(`${pages} list pages of 5000, 10 summaries; GET /api/v1/domains/?limit=100 ${listRun.rps} req/s (${listRun.non2xx} non-2xx)`);

  phase = 'portfolio-worker';
  say(`portfolio-worker phase; load average ${load()}`);
  t = performance.now();
  const queued = (await (await fetch(`${api}/api/v1/exports/`, { method: 'POST', headers: pauth, body: '{}' })).json()) as { meta: { export_id: number } };
  let exp: { status: string; row_count: number; file_size: number; error?: string | null } | undefined;
  while (!exp || !['completed', 'failed'].includes(exp.status)) {
    await sleep(250);
    exp = ((await (await fetch(`${api}/api/v1/exports/${queued.meta.export_id}/`, { headers: pauth })).json()) as { data: typeof exp }).data;
  }
  if (exp!.status !== 'completed') throw new Error(`export failed: ${exp!.error}`);
  say(`export of ${exp!.row_count} rows (${(exp!.file_size / 1_048_576).toFixed(1)} MB csv) in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  const worldDomains = ['acme.test', 'catchall.test', 'fallback.test', 'nullmx.test', 'aonly.test', 'servfail.test', 'greylist.test', 'blocked.test', 'listed.test', 'acceptall.test', 'tarpit.test', 'starttls.test', 'badtls.test', 'ratelimit.test'];
  await addDomains(db, portfolioAccount._id, worldDomains, { intervalS: 86_400 });
  const nats = await connectNats(stack.env.NATS_URL!, 'bench-rss', createLogger('bench-rss', 'silent'));
  await requestScan(nats.nc, worldDomains, { intervalS: 86_400 });
  await nats.close();
  const corpus = db.collection(COLLECTIONS.portfolioCorpus.name);
  t = performance.now();
  while ((await corpus.countDocuments({ _id: { $in: worldDomains } as never, scan_count: { $gte: 1 } })) < worldDomains.length && performance.now() - t < 120_000) await sleep(500);
  say(`${await corpus.countDocuments({ _id: { $in: worldDomains } as never, scan_count: { $gte: 1 } })} of ${worldDomains.length} world domains scanned in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  await sleep(1_000);

  // VmHWM: the kernel's own peak, which a 100 ms sampler can miss.
  const hwm = Object.fromEntries([...pids].map(([name, pid]) => [name, Math.round(statusMb(pid, 'VmHWM'))]));
  clearInterval(sampler);
  say('peak VmRSS per phase (MB), then VmHWM:');
  say(`${'process'.padEnd(18)}${PHASES.map((p) => p.padStart(18)).join('')}${'VmHWM'.padStart(8)}`);
  for (const [name, row] of peaks) say(`${name.padEnd(18)}${PHASES.map((p) => String(Math.round(row[p])).padStart(18)).join('')}${String(hwm[name]).padStart(8)}`);
  say(`load average ${load()}`);
  for (const name of ['gateway', 'lookup', 'portfolio-api', 'portfolio-worker'] as const) {
    const row = peaks.get(name)!;
    const key = name.replace('-', '_');
    figures[`${key}_rest_mb`] = Math.round(row.rest);
    figures[`${key}_max_rss_mb`] = hwm[name];
    figures[`${key}_ratio`] = Number((hwm[name]! / row.rest).toFixed(2));
  }
  figures.scheduler_max_rss_mb = hwm.scheduler;
  figures.probe_node_max_rss_mb = hwm['probe-node'];
  figures.bare_max_rss_mb = hwm.bare;
  figures.node_options = EXTRA_NODE_OPTIONS;
  figures.verify_rps = verifyRun.rps;
  figures.lookup_tools_rps = toolRun.rps;
  await mongo.close();
} finally {
  clearInterval(sampler);
  bare.kill('SIGTERM');
  for (const p of procs) await p.stop(5_000).catch(() => undefined);
  await world.stop();
  await stack.stop();
  if (!args.has('keep')) rmSync(dataDir, { recursive: true, force: true });
  else say(`kept ${dataDir}`);
}
process.stdout.write(`${JSON.stringify(figures)}\n`);
