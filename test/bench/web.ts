// `npm run bench -- web [--samples 300] [--pollers 1000] [--poll-seconds 30] [--jobs 10000]`
// What the console's pages cost, on a gateway process against a local stack:
//   weight     each page of PAGES over the wire with Accept-Encoding: br: a first visit (the HTML
//              and every asset it links) and a repeat visit (the HTML only: assets are immutable
//              and cached by the browser)
//   render     each page's answer time, one request at a time on loopback (--samples each), with
//              --jobs job documents in the account (inserted in bulk); GET /v1/health in the same
//              run is the baseline (the framework alone), printed as a ratio
//   live       --pollers simulated open pages polling LIVE (a page's data-live endpoint) at the
//              page's interval for --poll-seconds: the gateway's RSS over its RSS at rest and its
//              CPU, per open page, and the polls answered late or not at all
// Baselines in the same run: GET /v1/health (the framework alone) and one MongoDB findOne by _id
// from the bench process (a page's reads are a few of those).
// The live figures come with the store's ceiling for the same reads (a poll's Redis and MongoDB
// reads driven from this process, 64 at once): polls/s as a ratio to it.
// Targets: first visit < 100 KB, repeat < 20 KB, render p99 < 50 ms, memory bounded (RSS in the
// last third of the polling no higher than in the middle third, 5 % allowed); each printed with
// pass/fail. The last line is JSON.
import http from 'node:http';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { MongoClient } from 'mongodb';
import { createAccount, findPersonByEmail, type Account } from '@dv/accounts';
import { COLLECTIONS, RETENTION_DAYS, itemId, newId, type JobDoc, type JobItemDoc } from '@dv/contracts';
import { consoleSignInLink } from '@dv/gateway/admin';
import { GATEWAY_DEFAULTS } from '@dv/gateway/defaults';
import { sandboxResult } from '@dv/verdict';
import { applySchema, REPO_ROOT, startServiceProcess, startStack } from '@dv/stack';
import { benchArgs } from './lib/common.ts';
import { cpuTimes } from './lib/cpu.ts';

const args = benchArgs();
const SAMPLES = Number(args.get('samples') ?? 300);
const POLLERS = Number(args.get('pollers') ?? 1_000);
const POLL_S = Number(args.get('poll-seconds') ?? 30);
const JOBS = Number(args.get('jobs') ?? 10_000);
const say = (msg: string) => process.stderr.write(`[bench web] ${msg}\n`);

/** What the pages' paths need: ids of checks made for the bench. */
interface Seeded {
  doneCheck: string;
  runningCheck: string;
  doneList: string;
  runningList: string;
}

/** The console's main pages: a page added later is one row. */
const PAGES: readonly { name: string; path: (s: Seeded) => string; signedIn: boolean }[] = [
  { name: 'sign-in', path: () => '/app/sign-in', signedIn: false },
  { name: 'overview', path: () => '/app/', signedIn: true },
  { name: 'check', path: () => '/app/check', signedIn: true },
  { name: 'check-result', path: (s) => `/app/check/${s.doneCheck}`, signedIn: true },
  { name: 'lists', path: () => '/app/lists', signedIn: true },
  { name: 'list', path: (s) => `/app/lists/${s.doneList}`, signedIn: true },
  { name: 'upload', path: () => '/app/lists/new', signedIn: true },
  { name: 'account', path: () => '/app/account', signedIn: true },
  { name: 'keys', path: () => '/app/keys', signedIn: true },
  { name: 'members', path: () => '/app/members', signedIn: true },
  { name: 'plan', path: () => '/app/plan', signedIn: true },
];

/** The live endpoint open pages poll, at their page's interval: a running list's page. */
const LIVE = { name: 'list-live', path: (s: Seeded) => `/app/lists/${s.runningList}/live`, intervalMs: GATEWAY_DEFAULTS.consoleListLiveIntervalMs };

const TARGETS = { firstVisitBytes: 100_000, repeatVisitBytes: 20_000, renderP99Ms: 50 };

const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });

interface Got {
  status: number;
  /** Body bytes as they crossed the wire (compressed when the server compressed them). */
  wireBytes: number;
  headerBytes: number;
  body: string;
  ms: number;
  setCookies: string[];
  location: string | undefined;
}

function request(base: string, path: string, opts: { cookie?: string; method?: 'GET' | 'POST'; form?: Record<string, string>; br?: boolean } = {}): Promise<Got> {
  const body = opts.form ? new URLSearchParams(opts.form).toString() : undefined;
  const headers: Record<string, string> = { accept: 'text/html' };
  if (opts.cookie) headers.cookie = opts.cookie;
  if (opts.br) headers['accept-encoding'] = 'br';
  if (body) Object.assign(headers, { 'content-type': 'application/x-www-form-urlencoded', origin: base, 'sec-fetch-site': 'same-origin' });
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}${path}`, { method: opts.method ?? 'GET', headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const raw = Buffer.concat(chunks);
        const headerBytes = res.rawHeaders.reduce((n, h) => n + h.length + 2, 0) + 20;
        // Only uncompressed bodies are read as text (pages); an asset's bytes are only counted.
        const text = res.headers['content-encoding'] ? '' : raw.toString('utf8');
        resolve({ status: res.statusCode ?? 0, wireBytes: raw.length, headerBytes, body: text, ms: performance.now() - t0, setCookies: res.headers['set-cookie'] ?? [], location: res.headers.location });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

const cookiesOf = (jar: string, got: Got): string => [jar, ...got.setCookies.map((c) => c.split(';')[0]!)].filter(Boolean).join('; ');
const fieldValue = (html: string, name: string): string => new RegExp(`name="${name}" value="([^"]+)"`).exec(html)?.[1] ?? '';
const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const round1 = (n: number) => Math.round(n * 10) / 10;
const kb = (n: number) => `${(n / 1000).toFixed(1)} KB`;
const verdict = (ok: boolean) => (ok ? 'pass' : 'FAIL');

function rssBytes(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : 0;
}

/** The console's sign-in as a person does it, from a link the admin entry issues. */
async function signIn(base: string, redis: Redis, prefix: string, email: string): Promise<string> {
  const link = await consoleSignInLink({ redis, redisKeyPrefix: prefix, baseUrl: base, email });
  const page = await request(base, new URL(link.url).pathname + new URL(link.url).search);
  const jar = cookiesOf('', page);
  const used = await request(base, '/app/sign-in/link', { method: 'POST', cookie: jar, form: { _csrf: fieldValue(page.body, '_csrf'), token: fieldValue(page.body, 'token') } });
  if (used.status !== 303) throw new Error(`sign-in answered ${used.status}`);
  return cookiesOf(jar, used);
}

/** --jobs list jobs of the account, finished, in bulk; and two single checks for the check pages. */
async function seedJobs(db: ReturnType<MongoClient['db']>, accountId: string): Promise<Seeded> {
  const now = Date.now();
  const expires = new Date(now + RETENTION_DAYS * 86_400_000);
  const job = (id: string, kind: 'list' | 'single', status: JobDoc['status'], total: number, at: Date): JobDoc => ({
    _id: id, account_id: accountId, key_id: 'console:bench', mode: 'live', kind, status, label: kind === 'list' ? `list ${id.slice(-6)}` : null, total, done: status === 'running' ? 0 : total,
    counts: { deliverable: status === 'running' ? 0 : total, undeliverable: 0, risky: 0, unknown: 0 }, credits_charged: total, credits_refunded: 0, max_age_days: null, force_fresh: false, notify_email: false,
    max_wall_seconds: null, deadline_at: null, webhook: null, created_at: at, updated_at: at, completed_at: status === 'running' ? null : at, expires_at: expires,
  });
  const jobs = db.collection<JobDoc>(COLLECTIONS.jobs.name);
  for (let from = 0; from < JOBS; from += 2_000) {
    const batch = Array.from({ length: Math.min(2_000, JOBS - from) }, (_, i) => {
      const at = new Date(now - (JOBS - from - i) * 60_000);
      return job(newId('job', at.getTime()), 'list', 'completed', 500, at);
    });
    await jobs.insertMany(batch, { ordered: false });
  }
  const item = (jobId: string, email: string, done: boolean, at: Date): JobItemDoc => ({
    _id: itemId(jobId, 0), job_id: jobId, account_id: accountId, seq: 0, email, ref: null, meta: null, state: done ? 'done' : 'queued', result: done ? sandboxResult(email, at) : null,
    evidence: done ? { mx_host: 'mx1.example.com', reply: { code: 250, enhanced: '2.1.5', text: 'Recipient <jane.doe@example.com> OK' }, catch_all_probe: 'refused' } : undefined,
    attempts: done ? 1 : 0, next_attempt_at: null, source_ip: null, created_at: at, updated_at: at, expires_at: expires,
  });
  const at = new Date();
  const doneCheck = newId('job');
  const runningCheck = newId('job');
  const runningList = newId('job');
  await jobs.insertMany([job(doneCheck, 'single', 'completed', 1, at), job(runningCheck, 'single', 'running', 1, at), job(runningList, 'list', 'running', 1_000, at)]);
  await db.collection<JobItemDoc>(COLLECTIONS.jobItems.name).insertMany([item(doneCheck, 'jane.doe@example.com', true, at), item(runningCheck, 'slow@example.com', false, at)]);
  const doneList = (await jobs.findOne({ account_id: accountId, kind: 'list', status: 'completed' }, { sort: { _id: -1 }, projection: { _id: 1 } }))!._id;
  return { doneCheck, runningCheck, doneList, runningList };
}

interface Weight {
  page: string;
  first: number;
  repeat: number;
  assets: number;
}

/** A first visit: the HTML and every asset it links, with br; a repeat visit: the HTML alone. */
async function weigh(base: string, name: string, path: string, cookie: string): Promise<Weight> {
  const page = await request(base, path, { cookie, br: true });
  if (page.status !== 200) throw new Error(`${path} answered ${page.status}`);
  const assets = [...new Set([...page.body.matchAll(/(?:href|src)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!))];
  let assetBytes = 0;
  for (const a of assets) {
    const got = await request(base, a, { br: true });
    assetBytes += got.wireBytes + got.headerBytes;
  }
  const html = page.wireBytes + page.headerBytes;
  return { page: name, first: html + assetBytes, repeat: html, assets: assets.length };
}

async function renderTimes(base: string, path: string, cookie: string): Promise<{ p50: number; p99: number }> {
  for (let i = 0; i < 20; i++) await request(base, path, { cookie });
  const ms: number[] = [];
  for (let i = 0; i < SAMPLES; i++) ms.push((await request(base, path, { cookie })).ms);
  ms.sort((a, b) => a - b);
  return { p50: round1(percentile(ms, 50)), p99: round1(percentile(ms, 99)) };
}

/** The store's own floor, from this process: one findOne by _id (a page makes several). */
async function storeRoundTrip(db: ReturnType<MongoClient['db']>, accountId: string): Promise<{ p50: number; p99: number }> {
  const accounts = db.collection<Account>(COLLECTIONS.accounts.name);
  const ms: number[] = [];
  for (let i = 0; i < SAMPLES + 20; i++) {
    const t0 = performance.now();
    await accounts.findOne({ _id: accountId });
    if (i >= 20) ms.push(performance.now() - t0);
  }
  ms.sort((a, b) => a - b);
  return { p50: round1(percentile(ms, 50)), p99: round1(percentile(ms, 99)) };
}

/**
 * The store's ceiling for one poll's reads made one poll at a time, driven from this process
 * without the gateway: the session (Redis GET), the person's memberships and accounts, the job
 * (MongoDB), 64 polls at once, for 10 s. The gateway groups these reads across polls
 * (web/reads.ts), so its rate may pass this ceiling: the ratio says by how much grouping pays.
 */
async function storeCeiling(db: ReturnType<MongoClient['db']>, redis: Redis, accountId: string, personId: string, jobId: string): Promise<number> {
  const endAt = performance.now() + 10_000;
  let n = 0;
  const loop = async () => {
    while (performance.now() < endAt) {
      await redis.get(`${prefix}console:bench-session`);
      const mine = await db.collection<{ account_id: string }>(COLLECTIONS.memberships.name).find({ person_id: personId }).sort({ created_at: 1 }).toArray();
      await db.collection<Account>(COLLECTIONS.accounts.name).find({ _id: { $in: mine.map((m) => m.account_id) } }).toArray();
      await db.collection<JobDoc>(COLLECTIONS.jobs.name).findOne({ _id: jobId, account_id: accountId });
      n++;
    }
  };
  await Promise.all(Array.from({ length: 64 }, loop));
  return n / 10;
}

/** POLLERS open pages, each asking LIVE every intervalMs after its last answer (as enhance.js does). */
async function livePolling(base: string, path: string, cookie: string, pid: number) {
  const restRss = rssBytes(pid);
  const cpu0 = cpuTimes(pid);
  let polls = 0;
  let failed = 0;
  let late = 0;
  const samples: { at: number; rss: number }[] = [];
  const sampler = setInterval(() => samples.push({ at: performance.now(), rss: rssBytes(pid) }), 200);
  const endAt = performance.now() + POLL_S * 1000;
  const poller = async () => {
    await new Promise((r) => setTimeout(r, Math.random() * LIVE.intervalMs));
    while (performance.now() < endAt) {
      const got = await request(base, path, { cookie }).catch(() => null);
      polls++;
      if (!got || got.status !== 200) failed++;
      else if (got.ms > LIVE.intervalMs) late++;
      await new Promise((r) => setTimeout(r, LIVE.intervalMs));
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: POLLERS }, poller));
  const seconds = (performance.now() - t0) / 1000;
  clearInterval(sampler);
  const cpu1 = cpuTimes(pid);
  const cpuShare = (cpu1.user + cpu1.system - cpu0.user - cpu0.system) / seconds;
  // Bounded: the last third of the run holds no more than the middle third (5 % for the collector's swings).
  const third = (k: number) => Math.max(0, ...samples.filter((x) => x.at >= t0 + ((k * seconds) / 3) * 1000 && x.at < t0 + (((k + 1) * seconds) / 3) * 1000).map((x) => x.rss));
  const peakRss = Math.max(restRss, ...samples.map((x) => x.rss));
  return { restRss, peakRss, bounded: third(2) <= third(1) * 1.05, middleRss: third(1), lastRss: third(2), polls, failed, late, rate: polls / seconds, cpuShare, expectedRate: (POLLERS * 1000) / LIVE.intervalMs };
}

const dataDir = join(REPO_ROOT, '.local', `bench-web-${process.pid}`);
say('starting NATS, Redis and MongoDB');
const stack = await startStack({ dataDir, log: say });
const dbName = 'bench_web';
const prefix = 'benchweb:';
const client = new MongoClient(stack.env.MONGODB_URL!);
const db = client.db(dbName);
await applySchema(db);
const account = await createAccount(db, { name: 'Bench', email: `bench-${process.pid}@example.com`, plan: 'business', credits: 1_000_000 });
say(`inserting ${JOBS.toLocaleString('en-US')} jobs`);
const seeded = await seedJobs(db, account._id);
await db.collection<Account>(COLLECTIONS.accounts.name).updateOne({ _id: account._id }, { $set: { 'limits.requestsPerMinute': 100_000_000 } });

say('starting the gateway');
const gateway = await startServiceProcess('gateway', { env: { ...stack.env, MONGODB_DB: dbName, LOG_LEVEL: 'warn', REDIS_KEY_PREFIX: prefix }, logDir: join(dataDir, 'logs') });
const base = gateway.url;
const redis = new Redis(stack.env.REDIS_URL!, { maxRetriesPerRequest: 1 });
const cookie = await signIn(base, redis, prefix, account.email);

const weights: Weight[] = [];
const renders: Record<string, { p50: number; p99: number }> = {};
say(`weighing the pages and timing ${SAMPLES} answers of each`);
for (const p of PAGES) {
  const c = p.signedIn ? cookie : '';
  weights.push(await weigh(base, p.name, p.path(seeded), c));
  renders[p.name] = await renderTimes(base, p.path(seeded), c);
}
const health = await renderTimes(base, '/v1/health', '');
const store = await storeRoundTrip(db, account._id);
say(`${POLLERS} open pages polling ${LIVE.name} every ${LIVE.intervalMs} ms for ${POLL_S} s`);
say('the store\'s ceiling for one poll\'s reads (64 at once, 10 s)');
const ceiling = await storeCeiling(db, redis, account._id, (await findPersonByEmail(db, account.email))!._id, seeded.runningList);
const live = await livePolling(base, LIVE.path(seeded), cookie, gateway.child.pid!);

for (const w of weights) {
  const r = renders[w.page]!;
  say(`${w.page.padEnd(13)} first visit ${kb(w.first).padStart(9)} (${w.assets} assets) ${verdict(w.first < TARGETS.firstVisitBytes)}   repeat ${kb(w.repeat).padStart(8)} ${verdict(w.repeat < TARGETS.repeatVisitBytes)}   render p50 ${r.p50} ms p99 ${r.p99} ms ${verdict(r.p99 < TARGETS.renderP99Ms)} (${round1(r.p50 / health.p50)}x health, ${round1(r.p50 / store.p50)}x a findOne)`);
}
say(`baselines: GET /v1/health p50 ${health.p50} ms p99 ${health.p99} ms; one MongoDB findOne by _id p50 ${store.p50} ms p99 ${store.p99} ms`);
const perPageBytes = Math.max(0, live.peakRss - live.restRss) / POLLERS;
say(`live: ${live.polls} polls at ${live.rate.toFixed(0)}/s (open pages ask ${live.expectedRate.toFixed(0)}/s; the store's ceiling for their reads ${ceiling.toFixed(0)}/s, ratio ${(live.rate / ceiling).toFixed(2)}), ${live.late} answered after the interval, ${live.failed} failed`);
say(`live: gateway RSS ${(live.restRss / 1e6).toFixed(0)} MB at rest, ${(live.peakRss / 1e6).toFixed(0)} MB peak (${(live.middleRss / 1e6).toFixed(0)} MB in the middle third, ${(live.lastRss / 1e6).toFixed(0)} MB in the last: ${live.bounded ? 'bounded' : 'still growing'} ${verdict(live.bounded)}): ${kb(perPageBytes)} per open page; CPU ${(live.cpuShare * 100).toFixed(0)}% of a core, ${((live.cpuShare * 1000) / POLLERS).toFixed(3)} millicore per open page`);

redis.disconnect();
await gateway.stop();
await client.close();
await stack.stop();
rmSync(dataDir, { recursive: true, force: true });

const figures = {
  pages: Object.fromEntries(weights.map((w) => [w.page, { first_visit_bytes: w.first, repeat_visit_bytes: w.repeat, render_p50_ms: renders[w.page]!.p50, render_p99_ms: renders[w.page]!.p99 }])),
  health_p50_ms: health.p50,
  health_p99_ms: health.p99,
  mongo_find_p50_ms: store.p50,
  mongo_find_p99_ms: store.p99,
  jobs_in_account: JOBS,
  live_endpoint: LIVE.name,
  live_open_pages: POLLERS,
  live_interval_ms: LIVE.intervalMs,
  live_polls_per_s: Math.round(live.rate),
  live_store_ceiling_per_s: Math.round(ceiling),
  live_store_ratio: Number((live.rate / ceiling).toFixed(3)),
  live_answered_share: Number((live.rate / live.expectedRate).toFixed(3)),
  live_polls_late: live.late,
  live_polls_failed: live.failed,
  rest_rss_mb: Math.round(live.restRss / 1e6),
  peak_rss_mb: Math.round(live.peakRss / 1e6),
  rss_bytes_per_open_page: Math.round(perPageBytes),
  cpu_millicores_per_open_page: Number(((live.cpuShare * 1000) / POLLERS).toFixed(3)),
  pass: {
    first_visit: weights.every((w) => w.first < TARGETS.firstVisitBytes),
    repeat_visit: weights.every((w) => w.repeat < TARGETS.repeatVisitBytes),
    render_p99: Object.values(renders).every((r) => r.p99 < TARGETS.renderP99Ms),
    memory_bounded: live.bounded,
  },
};
process.stdout.write(`${JSON.stringify(figures)}\n`);
