// `npx node scripts/dashboard-picture.ts [--minutes 10] [--out docs/dashboard-verification-pipeline.png]`
// The picture of the "Verification pipeline" dashboard kept in docs/, over minutes of load rather
// than the dashboard test's seconds (too short for rate() over 1 m to draw a line). Starts what the
// test starts (a local stack, the simulated world, the five services as processes, a real
// Prometheus with the rule files, scraping every second), drives a load that rises and falls over
// the run, then draws every panel over the whole run with the test's renderer in headless Chromium.
// The load, every 5 s: sandbox single verifications and a sandbox list whose size follows the wave;
// every 20 s a live list of the world's mailboxes (accepted, unknown, catch-all, greylisted, policy
// block, full) with a completion webhook; now and then a refused request and a replayed
// Idempotency-Key. Not a test: nothing is asserted but that the picture has data.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { MongoClient } from 'mongodb';
import type { Account } from '@dv/accounts';
import { COLLECTIONS } from '@dv/contracts';
import { DASHBOARDS } from '@dv/infra/grafana/dashboards';
import { dashboardPanelData, screenshotDashboard, WORLD_SERVICE_ENV } from '@dv/infra/grafana/picture';
import { ruleFiles } from '@dv/infra/prometheus/rules';
import { startPrometheus, type RunningPrometheus } from '@dv/infra/prometheus/server';
import { applySchema } from '@dv/stack';
import { ensureDemoAccount } from '@dv/infra';
import { SERVICE_NAMES, stackSecretsEnv, startServiceProcess, type RunningProcess } from '@dv/stack';
import { REPO_ROOT, startStack } from '@dv/stack';
import { DEFAULT_WORLD_PATH, loadWorld, startWorld } from '@dv/world';

const { values } = parseArgs({ options: { minutes: { type: 'string', default: '10' }, out: { type: 'string', default: join(REPO_ROOT, 'docs', 'dashboard-verification-pipeline.png') } }, strict: true });
const minutes = Number(values.minutes);
if (!(minutes >= 2 && minutes <= 120)) throw new Error('--minutes must be 2-120 (rate() reads 1 m windows)');
const out = resolve(values.out!);
const say = (m: string) => process.stderr.write(`[dashboard-picture] ${m}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const TICK_MS = 5_000;
/** The world's mailboxes a live list asks about, one of each kind of answer. */
const LIVE = ['alice@acme.test', 'carol@acme.test', 'nobody@acme.test', 'info@catchall.test', 'user@greylist.test', 'user@blocked.test', 'user@listed.test'];

const dataDir = mkdtempSync(join(tmpdir(), 'dv-picture-'));
say('starting NATS, Redis, MongoDB, the simulated world and the five services');
const stack = await startStack({ dataDir, log: say });
const world = await startWorld(loadWorld(DEFAULT_WORLD_PATH));
let webhooks = 0;
const hooks = createServer((req, res) => {
  req.resume();
  webhooks += 1;
  res.writeHead(204).end();
});
await new Promise<void>((r) => hooks.listen(0, '127.0.0.1', r));
const running: RunningProcess[] = [];
const client = new MongoClient(stack.env.MONGODB_URL!);
let prom: RunningPrometheus | undefined;
try {
  const env: Record<string, string> = { ...stack.env, ...world.env, ...stackSecretsEnv(dataDir), MONGODB_DB: 'picture', LOG_LEVEL: 'warn', WEBHOOK_ALLOW_HTTP_LOOPBACK: 'true' };
  const db = client.db(env.MONGODB_DB!);
  await applySchema(db);
  for (const name of SERVICE_NAMES) running.push(await startServiceProcess(name, { env: { ...env, ...WORLD_SERVICE_ENV[name] }, logDir: join(dataDir, 'logs') }));
  const url = (name: string) => running.find((p) => p.name === name)!.url;
  const keys = await ensureDemoAccount(db);
  // Enough credits and limits for the whole run: a 429 would draw the limiter, not the pipeline.
  await db.collection<Account>(COLLECTIONS.accounts.name).updateOne({ _id: keys.accountId }, { $set: { credits: 1_000_000, 'limits.requestsPerMinute': 1_000_000, 'limits.emailsPerDay': 1_000_000, 'limits.concurrentJobs': 1_000 } });
  prom = await startPrometheus({ dataDir: join(dataDir, 'prometheus'), targets: running.map((p) => ({ job: p.name, address: new URL(p.url).host })), ruleFiles: ruleFiles(), log: say });

  const gw = url('gateway');
  const hookUrl = `http://127.0.0.1:${(hooks.address() as AddressInfo).port}/hook`;
  const post = (path: string, key: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${gw}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers }, body: JSON.stringify(body), signal: AbortSignal.timeout(30_000) })
      .then(async (r) => (await r.arrayBuffer(), r.status))
      .catch(() => 0);
  const startS = Date.now() / 1000;
  const ticks = Math.round((minutes * 60_000) / TICK_MS);
  let sent = 0;
  say(`load for ${minutes} min (${ticks} ticks of ${TICK_MS / 1000} s); Prometheus ${prom.url}`);
  for (let i = 0; i < ticks; i++) {
    const t0 = Date.now();
    // Two rises and falls over the run (0..1).
    const wave = (1 - Math.cos((4 * Math.PI * i) / ticks)) / 2;
    const work: Promise<number>[] = [];
    for (let v = 0; v < 2 + Math.round(8 * wave); v++) work.push(post('/v1/verify', keys.sandbox, { email: `s${i}-${v}@example.com`, wait: 0 }));
    const listSize = 20 + Math.round(400 * wave);
    work.push(post('/v1/jobs', keys.sandbox, { emails: Array.from({ length: listSize }, (_, n) => `l${i}-${n}@company${n % 50}.example.com`) }));
    if (i % 4 === 0) work.push(post('/v1/jobs', keys.live, { emails: LIVE, webhook_url: hookUrl, max_age_days: 0 }));
    if (i % 6 === 0) work.push(post('/v1/verify', keys.sandbox, {}));
    if (i % 6 === 3) {
      const idem = { 'idempotency-key': `picture-${i}` };
      work.push(post('/v1/verify', keys.sandbox, { email: `idem${i}@example.com`, wait: 0 }, idem).then(() => post('/v1/verify', keys.sandbox, { email: `idem${i}@example.com`, wait: 0 }, idem)));
    }
    sent += (await Promise.all(work)).filter((s) => s >= 200 && s < 300).length;
    if (i % 12 === 11) say(`${Math.round((Date.now() / 1000 - startS) / 60)} min: ${sent} requests accepted, ${webhooks} webhooks`);
    await sleep(Math.max(0, TICK_MS - (Date.now() - t0)));
  }
  // A few more scrapes and rule evaluations after the last tick (the wave ends at its low: the
  // legends' last values are the light load's, not an idle stack's zeros).
  await sleep(15_000);
  const endS = Date.now() / 1000;
  const d = DASHBOARDS.find((x) => x.file === 'verification-pipeline.json')!;
  const panels = await dashboardPanelData(prom, d, startS, endS, Math.max(1, Math.round((endS - startS) / 300)));
  const withData = panels.filter((p) => p.series.length > 0).length;
  await screenshotDashboard(`${d.title} (local stack, ${minutes} min of rising and falling load)`, panels, out, say);
  say(`${withData} of ${panels.length} panels with data; wrote ${out}`);
  process.stdout.write(`${JSON.stringify({ minutes, panels: panels.length, panels_with_data: withData, requests_accepted: sent, webhooks, out })}\n`);
} finally {
  await prom?.stop();
  await Promise.allSettled(running.map((p) => p.stop()));
  await client.close();
  await world.stop();
  await new Promise((r) => hooks.close(r));
  await stack.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
