// `npm run bench -- gateway`: the gateway's request path against a bare node:http server on the
// same machine, in the same run (so the ratios cancel out the machine's speed):
//   verify_rps / lookup_rps / bare_rps   max throughput (autocannon, fixed connections)
//   verify_p99_ms                        p99 of sandbox POST /v1/verify (wait=0) at half its max rate
//   job_25k_accept_ms                    POST /v1/jobs with 25,000 live addresses until the 202: the
//                                        median of three, 2 s apart (each in job_25k_accept_runs_ms)
//   verify_store_rps / verify_store_ratio the store's own ceiling for a sandbox verify's writes (job
//                                        and item inserts grouped as the gateway groups them, the
//                                        acked JetStream publish, the published mark; a minimal
//                                        script, same concurrency), and verify_rps over it
// Targets: verify_store_ratio >= 0.5, verify_p99_ms < 50, job_25k_accept_ms < 1500 (verify_ratio and
// lookup_ratio against bare node:http are printed too: on this machine MongoDB under wine bounds them).
// Options: --duration <s> (default 8), --connections <n> (default 32).
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { MongoClient } from 'mongodb';
import { COLLECTIONS, RETENTION_DAYS, latestResultId, type LatestResultDoc } from '@dv/contracts';
import { createAccount, createApiKey, type Account } from '@dv/accounts';
import { sandboxResult } from '@dv/verdict';
import { applySchema } from '@dv/stack';
import { startServiceProcess } from '@dv/stack';
import { verifyStoreCeiling } from './lib/verify-store-ceiling.ts';
import { REPO_ROOT, startStack } from '@dv/stack';

const args = new Map<string, string>();
for (let i = 3; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ''), process.argv[i + 1] ?? '');
const durationS = Number(args.get('duration') ?? 8);
const connections = Number(args.get('connections') ?? 32);
const say = (msg: string) => process.stderr.write(`[bench gateway] ${msg}\n`);

const dataDir = join(REPO_ROOT, '.local', `bench-gateway-${process.pid}`);
say('starting NATS, Redis and MongoDB');
const stack = await startStack({ dataDir, log: say });
const dbName = 'bench_gateway';
const client = new MongoClient(stack.env.MONGODB_URL!);
const db = client.db(dbName);
await applySchema(db);
// The bench account: Enterprise with its limits raised so the limiter never answers 429.
const account = await createAccount(db, { name: 'Bench', email: `bench-${process.pid}@example.com`, plan: 'enterprise', credits: 1_000_000 });
await db.collection<Account>(COLLECTIONS.accounts.name).updateOne({ _id: account._id }, { $set: { 'limits.requestsPerMinute': 100_000_000, 'limits.emailsPerDay': 100_000_000, 'limits.singleChecksInFlight': 100_000_000, 'limits.concurrentJobs': 1_000 } });
const live = (await createApiKey(db, account._id, 'bench-live', 'live')).key;
const sandbox = (await createApiKey(db, account._id, 'bench-sandbox', 'sandbox')).key;
const now = new Date();
await db.collection<LatestResultDoc>(COLLECTIONS.latestResults.name).insertOne({ _id: latestResultId(account._id, 'sandbox', 'known@example.com'), account_id: account._id, mode: 'sandbox', email: 'known@example.com', result: sandboxResult('known@example.com', now), job_id: 'job_01m80dbqat1jtnsfaxsce0tkew', checked_at: now, expires_at: new Date(now.getTime() + RETENTION_DAYS * 86_400_000) });

say('starting the gateway and a bare node:http server');
const gateway = await startServiceProcess('gateway', { env: { ...stack.env, MONGODB_DB: dbName, LOG_LEVEL: 'warn', REDIS_KEY_PREFIX: 'bench:' }, logDir: join(dataDir, 'logs') });
const bareSrc = `const http=require('node:http');const body=JSON.stringify({status:'ok',service:'bare',api_version:'1.0.0'});http.createServer((q,s)=>{s.writeHead(200,{'content-type':'application/json','content-length':Buffer.byteLength(body)});s.end(body)}).listen(0,'127.0.0.1',function(){console.log(this.address().port)});`;
const bare = spawn(process.execPath, ['-e', bareSrc], { stdio: ['ignore', 'pipe', 'inherit'] });
const barePort = await new Promise<number>((resolve) => bare.stdout!.once('data', (d: Buffer) => resolve(Number(d.toString().trim()))));

interface Run {
  rps: number;
  p99: number;
  errors: number;
  non2xx: number;
}

async function cannon(opts: autocannon.Options): Promise<Run> {
  const r = await autocannon({ connections, duration: durationS, ...opts });
  return { rps: r.requests.average, p99: r.latency.p99, errors: r.errors + r.timeouts, non2xx: r.non2xx };
}

const verifyReq = { url: `${gateway.url}/v1/verify`, method: 'POST' as const, headers: { authorization: `Bearer ${sandbox}`, 'content-type': 'application/json' }, body: JSON.stringify({ email: 'bench@example.com', wait: 0 }) };
const lookupReq = { url: `${gateway.url}/v1/lookup?email=known@example.com`, headers: { authorization: `Bearer ${sandbox}` } };

say('warming up');
await autocannon({ ...verifyReq, connections: 8, duration: 2 });
await autocannon({ ...lookupReq, connections: 8, duration: 2 });
say(`bare node:http (${connections} connections, ${durationS} s)`);
const bareRun = await cannon({ url: `http://127.0.0.1:${barePort}/` });
say(`sandbox POST /v1/verify wait=0`);
const verifyRun = await cannon(verifyReq);
say(`the store's ceiling for the same writes (${connections} callers, ${durationS} s)`);
const storeRps = await verifyStoreCeiling({ db, natsUrl: stack.env.NATS_URL!, concurrency: connections, durationS });
say(`GET /v1/lookup`);
const lookupRun = await cannon(lookupReq);
// Diagnostics (not in the JSON line): the framework alone, then auth + the per-minute limit.
const healthRun = await cannon({ url: `${gateway.url}/v1/health`, duration: Math.max(2, Math.round(durationS / 2)) });
const statusRun = await cannon({ url: `${gateway.url}/v1/status`, headers: { authorization: `Bearer ${sandbox}` }, duration: Math.max(2, Math.round(durationS / 2)) });
say(`POST /v1/verify at half the max rate (${Math.round(verifyRun.rps / 2)}/s)`);
const halfRun = await cannon({ ...verifyReq, overallRate: Math.max(1, Math.round(verifyRun.rps / 2)) });

// Three 25,000-address jobs, 2 s apart (the first straight after the load above, while MongoDB
// still writes it out): one request measures mostly whether a checkpoint fell inside it, so the
// figure is their median and every run is printed.
say('25,000-address live jobs (3)');
const jobRuns: number[] = [];
let res!: Response;
let job: { accepted?: number; credits_charged?: number } = {};
for (let r = 0; r < 3; r++) {
  if (r > 0) await new Promise((resolve) => setTimeout(resolve, 2_000));
  const emails = Array.from({ length: 25_000 }, (_, i) => `person${i}.${r}@company${i % 997}.example.com`);
  const t0 = performance.now();
  res = await fetch(`${gateway.url}/v1/jobs`, { method: 'POST', headers: { authorization: `Bearer ${live}`, 'content-type': 'application/json' }, body: JSON.stringify({ emails }) });
  jobRuns.push(Math.round(performance.now() - t0));
  job = (await res.json()) as { accepted?: number; credits_charged?: number };
  if (res.status !== 202 || job.accepted !== 25_000) say(`unexpected job answer ${res.status} ${JSON.stringify(job).slice(0, 300)}`);
}
const jobMs = [...jobRuns].sort((a, b) => a - b)[1]!;

// A benchmark of error answers measures nothing: say so loudly (the lookup reads the sandbox key's own result).
for (const [name, r] of [['verify', verifyRun], ['lookup', lookupRun]] as const) if (r.non2xx > 0 || r.errors > 0) say(`WARNING: ${name} had ${r.non2xx} non-2xx answers and ${r.errors} errors; its figure is not a throughput`);
for (const [name, r] of [['bare', bareRun], ['verify', verifyRun], ['lookup', lookupRun], ['verify@half', halfRun], ['health', healthRun], ['status', statusRun]] as const) {
  say(`${name.padEnd(12)} ${r.rps.toFixed(0).padStart(7)} req/s  p99 ${r.p99} ms  errors ${r.errors}  non-2xx ${r.non2xx}`);
}
say(`store ceiling  ${storeRps.toFixed(0).padStart(7)} verifies/s`);
say(`25k jobs accepted in ${jobRuns.join(', ')} ms (median ${jobMs}; last ${res.status}, credits_charged ${job.credits_charged})`);

bare.kill();
await gateway.stop();
await client.close();
await stack.stop();
rmSync(dataDir, { recursive: true, force: true });

const figures = {
  verify_rps: Math.round(verifyRun.rps),
  lookup_rps: Math.round(lookupRun.rps),
  bare_rps: Math.round(bareRun.rps),
  verify_store_rps: Math.round(storeRps),
  verify_store_ratio: Number((verifyRun.rps / storeRps).toFixed(3)),
  verify_ratio: Number((verifyRun.rps / bareRun.rps).toFixed(3)),
  lookup_ratio: Number((lookupRun.rps / bareRun.rps).toFixed(3)),
  verify_p99_ms: halfRun.p99,
  job_25k_accept_ms: jobMs,
  job_25k_accept_runs_ms: jobRuns,
};
process.stdout.write(`${JSON.stringify(figures)}\n`);
