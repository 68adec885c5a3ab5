// `npm run bench -- portfolio-api [--domains 100000] [--walks 3] [--summary-calls 40] [--duration 8] [--connections 32] [--rounds 3] [--authed-only] [--prof DIR] [--keep]`
// The portfolio REST API against the store's own ceiling, in the same run on the same stack (so the
// ratios cancel out the machine's speed). An account of --domains monitored domains with scan
// results, registration data and changes (written straight into the store: seedPortfolio), then:
//   list_page_p99_ms / list_ratio     GET /api/v1/domains/?limit=5000 walking every page (meta.next),
//                                     --walks times; ratio = raw reads' time ÷ route's time for the same
//                                     pages (the driver doing the route's queries: find+sort+skip+limit
//                                     and the count), page by page (route then raw, or raw then
//                                     route, alternating) so both meet the store in the same state
//   summary_p99_ms                    GET /api/v1/dashboard/summary/, --summary-calls calls one after another
//   export_rows_per_s / export_ratio  a csv export of every row (default columns) by the worker role,
//                                     rows ÷ (completed_at − started_at); ratio over the driver reading the
//                                     same rows with the same cursor (filter, sort, batch size)
//   export_max_rss_mb                 the worker process's RSS sampled every 100 ms during the export
//   authed_rps / authed_ratio         GET /api/v1/ (key lookup, plan, both Redis limits) with autocannon
//                                     against a bare node:http server: --rounds rounds of each,
//                                     alternated (bare, authed, bare, ...) so both see the box in the
//                                     same state (after the export the store and the worker may still
//                                     be busy); ratio of the medians, every round printed. Keys of
//                                     AUTHED_ACCOUNTS Premium accounts in turn so no key reaches its
//                                     per-minute limit
// --authed-only skips the list, summary and export; --prof DIR writes a V8 CPU profile of the API
// process into DIR when it stops (node refuses --cpu-prof in NODE_OPTIONS: a shell execs node with it).
// Targets: list_ratio and export_ratio >= 0.5, summary_p99_ms < 300, export_max_rss_mb < 250,
// authed_ratio >= 0.3. The last line is one JSON object.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve as resolvePath } from 'node:path';
import autocannon from 'autocannon';
import { createAccount, createPortfolioKey, setPortfolioPlan } from '@dv/accounts';
import { COLLECTIONS, type AccountDomainDoc, type ExportDoc } from '@dv/contracts';
import { connectMongo } from '@dv/runtime';
import { applySchema } from '@dv/stack';
import { startServiceProcess, type RunningProcess } from '@dv/stack';
import { REPO_ROOT, startStack } from '@dv/stack';
import { accountFilter } from '@dv/portfolio-scanner/bench';
import { dashboardSummary } from '@dv/portfolio-scanner/bench';
import { PORTFOLIO_DEFAULTS } from '@dv/portfolio-scanner/defaults';
import { exportDomainFilter, exportRequestSchema, normalizeParameters } from '@dv/portfolio-scanner/bench';
import { accountProjection } from '@dv/portfolio-scanner/bench';
import { seedPortfolio } from '@dv/portfolio-scanner/testing';
import { benchArgs } from './lib/common.ts';
import { cpuDelta, cpuSecondsByName, cpuTimes } from './lib/cpu.ts';

const args = benchArgs();
const N = Number(args.get('domains') ?? 100_000);
const WALKS = Number(args.get('walks') ?? 3);
const SUMMARY_CALLS = Number(args.get('summary-calls') ?? 40);
const DURATION_S = Number(args.get('duration') ?? 8);
const CONNECTIONS = Number(args.get('connections') ?? 32);
const ROUNDS = Number(args.get('rounds') ?? 3);
const AUTHED_ONLY = args.has('authed-only');
// 2,000 requests per minute per Premium key, 3 keys per account. The authenticated rounds (8 s
// each, every other 8 s) fall in one key's minute: 120 accounts (360 keys, 720,000 calls) allow
// 30,000 req/s over three rounds. 40 were enough on a loaded box (1,500 req/s); on a quiet one the
// API served 17,800 req/s and the second and third rounds were mostly 429s.
const AUTHED_ACCOUNTS = 120;
const PAGE = 5_000;
const say = (msg: string) => process.stderr.write(`[bench portfolio-api] ${msg}\n`);
const round = (n: number, d = 2) => Math.round(n * 10 ** d) / 10 ** d;
const p99 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(xs.length * 0.99) - 1)]!;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const rssMb = (pid: number | undefined) => {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;
  } catch {
    return 0;
  }
};

const dataDir = join(REPO_ROOT, '.local', `bench-portfolio-api-${process.pid}`);
say('starting NATS, Redis and MongoDB');
const stack = await startStack({ dataDir, log: say });
const procs: RunningProcess[] = [];
const bare = spawn(process.execPath, ['-e', `const http=require('node:http');const body=JSON.stringify({status:'ok',data:{version:'v1'},meta:{},errors:[]});http.createServer((q,s)=>{s.writeHead(200,{'content-type':'application/json','content-length':Buffer.byteLength(body)});s.end(body)}).listen(0,'127.0.0.1',function(){console.log(this.address().port)});`], { stdio: ['ignore', 'pipe', 'inherit'] });
try {
  const dbName = 'bench_portfolio_api';
  const mongo = await connectMongo(stack.env.MONGODB_URL!, dbName);
  const db = mongo.db;
  await db.dropDatabase();
  await applySchema(db);
  const account = await createAccount(db, { name: 'Bench', email: `bench-${process.pid}@example.com`, plan: 'business' });
  await setPortfolioPlan(db, account._id, 'enterprise_max');
  const key = (await createPortfolioKey(db, account._id, 'bench')).key;
  // Keys for the authenticated-throughput run: AUTHED_ACCOUNTS Premium accounts x 3 keys (2,000/min each).
  const authedKeys: string[] = [];
  for (let a = 0; a < AUTHED_ACCOUNTS; a++) {
    const acc = await createAccount(db, { name: `Bench ${a}`, email: `bench-${process.pid}-${a}@example.com`, plan: 'business' });
    await setPortfolioPlan(db, acc._id, 'enterprise_max_premium');
    for (let k = 0; k < 3; k++) authedKeys.push((await createPortfolioKey(db, acc._id, `k${k}`)).key);
  }
  let t = performance.now();
  await seedPortfolio(db, account._id, N);
  say(`seeded ${N} domains (scan results, registration data, a change on every 10th) in ${round((performance.now() - t) / 1000, 1)} s`);

  const logDir = join(dataDir, 'logs');
  const env = { ...stack.env, MONGODB_DB: dbName, LOG_LEVEL: 'warn', PORTFOLIO_EXPORT_SIGNING_SECRET: randomBytes(32).toString('base64url'), REDIS_PREFIX: `bench-papi-${process.pid}:` };
  const prof = args.has('prof') ? { wrap: ['sh', '-c', `exec "$0" --cpu-prof --cpu-prof-dir=${JSON.stringify(resolvePath(String(args.get('prof'))))} "$@"`] } : {};
  const api = await startServiceProcess('portfolio-scanner', { env: { ...env, PORTFOLIO_ROLE: 'api' }, logDir, ...prof });
  procs.push(api);
  // The worker role as deployed, with nothing to scan (every domain's next scan is hours away) and
  // nowhere to send DNS or RDAP questions: what it does during the run is the export.
  const worker = await startServiceProcess('portfolio-scanner', { env: { ...env, PORTFOLIO_ROLE: 'worker', DNS_SERVERS: '127.0.0.1:9', RDAP_BOOTSTRAP_URL: 'http://127.0.0.1:9/', PORTFOLIO_EXPORT_CONCURRENCY: '1' }, logDir });
  procs.push(worker);
  // The API process's RSS over the whole run (its V8 limits are the launcher's: PORTFOLIO_API_NODE_OPTIONS).
  let apiRssMax = 0;
  const apiSampler = setInterval(() => (apiRssMax = Math.max(apiRssMax, rssMb(api.child.pid))), 200);
  apiSampler.unref();
  const barePort = await new Promise<number>((resolve) => bare.stdout!.once('data', (d: Buffer) => resolve(Number(d.toString().trim()))));
  const call = async (path: string, init: RequestInit = {}) => {
    const res = await fetch(path.startsWith('http') ? path : `${api.url}${path}`, { ...init, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...init.headers } });
    const body = (await res.json()) as { status: string; data: never; meta: Record<string, unknown> };
    if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(body)}`);
    return body;
  };
  say(`api ${api.url}, worker pid ${worker.child.pid}; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);

  // Steps 1-3 (skipped with --authed-only): the store-bound routes against the driver.
  const storeFigures = async () => {
    // 1. The list, every page, against the driver doing the same queries.
    const coll = db.collection<AccountDomainDoc>(COLLECTIONS.portfolioDomains.name);
    const listFilter = accountFilter(account._id, {});
    const routePages: number[] = [];
    const rawPages: number[] = [];
    await call(`/api/v1/domains/?limit=${PAGE}`); // warm-up
    // Page by page, the route's page and the driver's same reads one after the other, which goes
    // first alternating: both meet MongoDB in the same state (walk by walk, the first route walk
    // met the store still settling after the seed, and its deep pages took 0.7-1.4 s against
    // 0.2-0.3 s for the raw walk that followed).
    const raw = (offset: number) => Promise.all([coll.find(listFilter).sort({ id: 1 }).skip(offset).limit(PAGE).toArray(), coll.countDocuments(listFilter)]);
    for (let w = 0; w < WALKS; w++) {
      const seen = new Set<number>();
      let next: string | undefined = `/api/v1/domains/?limit=${PAGE}`;
      for (let offset = 0; next; offset += PAGE) {
        const rawFirst = (offset / PAGE + w) % 2 === 1;
        if (rawFirst) {
          t = performance.now();
          await raw(offset);
          rawPages.push(performance.now() - t);
        }
        t = performance.now();
        const page: { data: { id: number }[]; meta: { next?: string } } = await call(next);
        routePages.push(performance.now() - t);
        for (const d of page.data) seen.add(d.id);
        next = page.meta.next;
        if (!rawFirst) {
          t = performance.now();
          await raw(offset);
          rawPages.push(performance.now() - t);
        }
      }
      if (seen.size !== N) throw new Error(`walk ${w} saw ${seen.size} domains, not ${N}`);
    }
    const listRatio = sum(rawPages) / sum(routePages);
    say(`list: ${routePages.length} pages of ${PAGE}: route median ${round(median(routePages))} ms p99 ${round(p99(routePages))} ms, ${Math.round((N * WALKS) / (sum(routePages) / 1000))} rows/s; raw reads p99 ${round(p99(rawPages))} ms, ${Math.round((N * WALKS) / (sum(rawPages) / 1000))} rows/s; ratio ${round(listRatio)}`);

    // 2. The dashboard summary (after the account's first read, which computes its snapshot; the
    // uncached figures in this process are printed as its store ceiling).
    t = performance.now();
    await call('/api/v1/dashboard/summary/');
    const summaryFirstMs = performance.now() - t;
    const summaryTimes: number[] = [];
    const summaryRaw: number[] = [];
    let summary: Record<string, unknown> = {};
    for (let i = 0; i < SUMMARY_CALLS; i++) {
      t = performance.now();
      summary = (await call('/api/v1/dashboard/summary/')).data;
      summaryTimes.push(performance.now() - t);
      t = performance.now();
      await dashboardSummary(db, account._id);
      summaryRaw.push(performance.now() - t);
    }
    say(`summary: first call ${Math.round(summaryFirstMs)} ms (computes the snapshot), then ${SUMMARY_CALLS} calls, p99 ${round(p99(summaryTimes))} ms (computed without the snapshot, in-process: p99 ${round(p99(summaryRaw))} ms); total_domains ${String(summary.total_domains)}, needs_attention ${String(summary.needs_attention_count)}`);

    // 3. A csv export of every row, the worker's RSS sampled meanwhile; then the driver reading the same rows.
    const rssBefore = rssMb(worker.child.pid);
    let rssMax = rssBefore;
    const sampler = setInterval(() => (rssMax = Math.max(rssMax, rssMb(worker.child.pid))), 100);
    const queued = await call('/api/v1/exports/', { method: 'POST', body: JSON.stringify({}) });
    const exportId = queued.meta.export_id as number;
    let job: { status: string; row_count: number; file_size: number; file_url: string; error: string | null } | undefined;
    while (!job || !['completed', 'failed'].includes(job.status)) {
      await new Promise((r) => setTimeout(r, 200));
      job = (await call(`/api/v1/exports/${exportId}/`)).data;
    }
    clearInterval(sampler);
    if (job.status !== 'completed') throw new Error(`export failed: ${job.error}`);
    const doc = (await db.collection<ExportDoc>(COLLECTIONS.portfolioExports.name).findOne({ _id: (queued.data as { task_id: string }).task_id }))!;
    const exportS = (doc.completed_at!.getTime() - doc.started_at!.getTime()) / 1000;
    const exportRps = job.row_count / exportS;
    const file = Buffer.from(await (await fetch(job.file_url)).arrayBuffer());
    const lines = file.toString().split('\r\n').filter(Boolean).length;
    if (job.row_count !== N || lines !== N + 1 || file.length !== job.file_size) throw new Error(`export counts: row_count ${job.row_count}, lines ${lines}, bytes ${file.length} vs file_size ${job.file_size}`);
    const { parameters } = normalizeParameters(exportRequestSchema.parse({}));
    t = performance.now();
    let rawRows = 0;
    for await (const d of coll.find(exportDomainFilter(account._id, parameters), { projection: accountProjection(parameters.columns) }).sort({ id: 1 }).batchSize(PORTFOLIO_DEFAULTS.exportBatchRows)) rawRows += d.domain ? 1 : 0;
    const rawExportRps = rawRows / ((performance.now() - t) / 1000);
    const exportRatio = exportRps / rawExportRps;
    say(`export: ${job.row_count} rows, ${round(job.file_size / 1_048_576, 1)} MB in ${round(exportS, 1)} s = ${Math.round(exportRps)} rows/s; the driver reading the same rows: ${Math.round(rawExportRps)} rows/s; ratio ${round(exportRatio)}; worker RSS ${Math.round(rssBefore)} MB before, max ${Math.round(rssMax)} MB during`);

    return {
      list_page_p99_ms: round(p99(routePages), 1),
      list_ratio: round(listRatio),
      summary_p99_ms: round(p99(summaryTimes), 1),
      export_rows_per_s: Math.round(exportRps),
      export_ratio: round(exportRatio),
      export_max_rss_mb: Math.round(rssMax),
      summary_first_ms: Math.round(summaryFirstMs),
      summary_uncached_p99_ms: round(p99(summaryRaw), 1),
      export_ceiling_rows_per_s: Math.round(rawExportRps),
      list_ceiling_rows_per_s: Math.round((N * WALKS) / (sum(rawPages) / 1000)),
    };
  };
  const store = AUTHED_ONLY ? undefined : await storeFigures();

  // 4. Authenticated GET /api/v1/ against bare node:http, alternated round by round.
  // Beside the rates (which swing with whatever else the box runs), the server's CPU per request:
  // what one call costs the process, less sensitive to the neighbours than req/s.
  // Where the rest of the box's CPU went: the server's split between user and kernel mode (writes
  // to loopback sockets do the receiver's TCP work too), Redis's and the client's (autocannon runs
  // in this process) per request.
  const redisPid = stack.servers.redis?.pid();
  const byRole = (p: number, comm: string) => (p === api.child.pid || p === bare.pid ? 'server' : p === process.pid ? 'client' : p === redisPid ? 'redis' : p === worker.child.pid ? 'worker' : comm);
  const cannon = async (pid: number | undefined, opts: autocannon.Options) => {
    const t0 = { server: cpuTimes(pid), box: cpuSecondsByName(byRole) };
    const r = await autocannon({ connections: CONNECTIONS, duration: DURATION_S, ...opts });
    const server = cpuTimes(pid);
    const box = cpuDelta(t0.box, cpuSecondsByName(byRole));
    // Cores the other processes kept busy meanwhile (two cores here: a busy neighbour slows the server's every instruction).
    const others = [...box].filter(([name, s]) => name !== 'server' && s / DURATION_S >= 0.05).sort((a, b) => b[1] - a[1]);
    const perReq = (seconds: number) => (seconds * 1e6) / Math.max(1, r.requests.total);
    return {
      rps: r.requests.average,
      non2xx: r.non2xx,
      errors: r.errors + r.timeouts,
      cpuUs: perReq(server.user + server.system - t0.server.user - t0.server.system),
      systemUs: perReq(server.system - t0.server.system),
      redisUs: perReq(box.get('redis') ?? 0),
      clientUs: perReq(box.get('client') ?? 0),
      others: others.map(([name, s]) => `${name} ${round(s / DURATION_S, 2)}`).join(', ') || 'none',
    };
  };
  const rootReqs = authedKeys.map((k) => ({ method: 'GET' as const, path: '/api/v1/', headers: { authorization: `Bearer ${k}` } }));
  await autocannon({ url: api.url, requests: rootReqs, connections: 8, duration: 2 });
  const bareRps: number[] = [];
  const authedRps: number[] = [];
  const bareCpuUs: number[] = [];
  const authedCpuUs: number[] = [];
  let authedNon2xx = 0;
  for (let r = 1; r <= ROUNDS; r++) {
    const bareRun = await cannon(bare.pid, { url: `http://127.0.0.1:${barePort}/` });
    const authedRun = await cannon(api.child.pid, { url: api.url, requests: rootReqs });
    bareCpuUs.push(bareRun.cpuUs);
    authedCpuUs.push(authedRun.cpuUs);
    bareRps.push(bareRun.rps);
    authedRps.push(authedRun.rps);
    authedNon2xx += authedRun.non2xx;
    if (authedRun.non2xx > 0 || authedRun.errors > 0) say(`WARNING: authed round ${r}: ${authedRun.non2xx} non-2xx, ${authedRun.errors} errors: its rate is not the authenticated call's`);
    say(`round ${r}/${ROUNDS}: GET /api/v1/ ${Math.round(authedRun.rps)} req/s, bare node:http ${Math.round(bareRun.rps)} req/s, ratio ${round(authedRun.rps / bareRun.rps)}; server CPU per request ${Math.round(authedRun.cpuUs)} µs (kernel ${Math.round(authedRun.systemUs)}), bare ${Math.round(bareRun.cpuUs)} µs (kernel ${Math.round(bareRun.systemUs)}); Redis ${Math.round(authedRun.redisUs)} µs; client ${Math.round(authedRun.clientUs)} µs, bare's ${Math.round(bareRun.clientUs)} µs; cores busy besides (authed round) ${authedRun.others}; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  }
  const authedRatio = median(authedRps) / median(bareRps);
  say(`GET /api/v1/: median ${Math.round(median(authedRps))} req/s; bare node:http median ${Math.round(median(bareRps))} req/s (${ROUNDS} rounds each, ${CONNECTIONS} connections, ${DURATION_S} s); ratio of medians ${round(authedRatio)}`);

  clearInterval(apiSampler);
  process.stdout.write(
    `${JSON.stringify({
      domains: N,
      ...store,
      authed_rps: Math.round(median(authedRps)),
      authed_ratio: round(authedRatio),
      bare_rps: Math.round(median(bareRps)),
      authed_rounds: authedRps.map((x, i) => round(x / bareRps[i]!)),
      authed_cpu_us: Math.round(median(authedCpuUs)),
      bare_cpu_us: Math.round(median(bareCpuUs)),
      authed_non2xx: authedNon2xx,
      api_max_rss_mb: Math.round(apiRssMax),
      loadavg: loadavg().map((l) => round(l, 1)),
    })}\n`,
  );
  await mongo.close();
} finally {
  bare.kill('SIGTERM');
  for (const p of procs) await p.stop(5_000).catch(() => undefined);
  await stack.stop();
  if (!args.has('keep')) rmSync(dataDir, { recursive: true, force: true });
  else say(`kept ${dataDir}`);
}
