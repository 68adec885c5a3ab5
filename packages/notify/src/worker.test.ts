import { ALL_COLLECTIONS, COLLECTIONS, type EventDoc, type JobDoc, type JobItemDoc } from '@dv/contracts';
import { createLogger, ensureCollections, type MongoDependency } from '@dv/runtime';
import type { Db } from 'mongodb';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isolatedMongo } from '@dv/runtime/testing';
import type { JobCompletedEvent } from './event.ts';
import { NOTIFY_METRICS } from './metrics.ts';
import { verifyDownloadSignature, verifyWebhookSignature } from './signature.ts';
import type { Resolver } from './target.ts';
import { eventDoc, jobDoc, result, webhookState } from './testing/fixtures.ts';
import { startReceiver, type Receiver } from './testing/receiver.ts';
import { startCaptureRelay, type CaptureRelay } from './testing/smtp.ts';
import { emailDueFilter, webhookDueFilter } from './store.ts';
import { startNotifyWorker, type NotifyWorker, type NotifyWorkerOptions } from './worker.ts';

// The durable worker against a real MongoDB, a real receiver on loopback and a real SMTP relay.

const SECRET = 'whsec_worker_test_secret';
const DOWNLOAD_SECRET = 'download-signing-secret-for-tests-0123456789';
const BASE = 'https://api.example.com';

let mongo: MongoDependency;
let db: Db;
let hook: Receiver;
let relay: CaptureRelay;
const workers: NotifyWorker[] = [];
const log = createLogger('notify-test', 'silent');

beforeAll(async () => {
  mongo = await isolatedMongo('notify');
  db = mongo.db;
  await ensureCollections(db, ALL_COLLECTIONS);
  await db.collection(COLLECTIONS.accounts.name).insertOne({ _id: 'acc_1' as never, email: 'owner@customer.example', webhook_secret: SECRET, name: 'Customer' });
  [hook, relay] = await Promise.all([startReceiver(), startCaptureRelay()]);
});

afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop()));
  await Promise.all([hook?.close(), relay?.close()]);
  await db?.dropDatabase();
  await mongo?.close();
});

beforeEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.stop()));
  await Promise.all([db.collection(COLLECTIONS.jobs.name).deleteMany({}), db.collection(COLLECTIONS.events.name).deleteMany({}), db.collection(COLLECTIONS.jobItems.name).deleteMany({})]);
  hook.received.length = 0;
  hook.respond = (_req, res) => {
    res.statusCode = 204;
    res.end();
  };
  relay.inbox.length = 0;
  relay.failNext = 0;
});

const jobs = () => db.collection<JobDoc>(COLLECTIONS.jobs.name);

function start(over: Partial<NotifyWorkerOptions> = {}): NotifyWorker {
  const w = startNotifyWorker({ db, log, registry: new Registry(), publicBaseUrl: BASE, ladderScale: 0.001, allowHttpLoopback: true, pollIntervalMs: 10, leaseMs: 5_000, ...over });
  workers.push(w);
  return w;
}

async function completedJob(id: string, over: Partial<JobDoc> = {}): Promise<JobDoc> {
  const job = jobDoc({ _id: id, account_id: 'acc_1', webhook: webhookState(hook.url(`/hook/${id}`)), ...over });
  await jobs().insertOne(job);
  await db.collection<EventDoc>(COLLECTIONS.events.name).insertOne(eventDoc(job, { seq: Number(id.replace(/\D/g, '')) || 1 }));
  const actions = ['send', 'send', 'review', 'drop'] as const;
  const items: JobItemDoc[] = actions.map((a, seq) => ({
    _id: `${id}:${seq}`, job_id: id, account_id: 'acc_1', seq, email: `u${seq}@example.com`, ref: null, meta: null, state: 'done',
    result: result(`u${seq}@example.com`, a === 'send' ? 'deliverable' : a === 'review' ? 'risky' : 'undeliverable', a),
    attempts: 1, next_attempt_at: null, source_ip: null, created_at: job.created_at, updated_at: job.created_at, expires_at: job.expires_at,
  }));
  await db.collection<JobItemDoc>(COLLECTIONS.jobItems.name).insertMany(items);
  return job;
}

async function waitFor<T>(probe: () => Promise<T | null | undefined | false>, timeoutMs = 10_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 15));
  }
}
const webhookOf = async (id: string) => (await jobs().findOne({ _id: id }))?.webhook ?? null;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('webhook worker', () => {
  it('retries on the scaled ladder, reaches a receiver down for two attempts on the third, then stops', async () => {
    hook.respond = (req, res, n) => {
      if (n === 1) return req.socket.destroy(); // down: connection dropped
      res.statusCode = n === 2 ? 503 : 200;
      res.end(n === 2 ? 'unavailable' : 'ok');
    };
    await completedJob('job_1');
    const registry = new Registry();
    start({ registry });
    const w = await waitFor(async () => ((await webhookOf('job_1'))?.delivered_at ? webhookOf('job_1') : null));
    expect(w).toMatchObject({ attempts: 3, last_status: 200, last_error: null, next_attempt_at: null });
    expect(hook.received).toHaveLength(3);
    const [a, b, c] = hook.received.map((r) => r.at) as [number, number, number];
    expect(b - a).toBeGreaterThanOrEqual(60); // 1 min × 0.001
    expect(c - b).toBeGreaterThanOrEqual(300); // 5 min × 0.001
    await sleep(2_000); // past the next rung (30 min × 0.001): nothing more is sent
    expect(hook.received).toHaveLength(3);

    const last = hook.received[2]!;
    expect(verifyWebhookSignature(last.headers['x-verify-signature'] as string, last.body, SECRET)).toBe(true);
    const body = JSON.parse(last.body) as JobCompletedEvent;
    expect(body).toMatchObject({ id: 'evt_1', type: 'job.completed', data: { job_id: 'job_1', results_url: `${BASE}/v1/jobs/job_1/results`, decisions: { send: 2, review: 1, drop: 1 } } });
    expect(hook.received[0]!.body).toBe(last.body); // every retry carries the same event
    const metrics = await registry.getSingleMetricAsString(NOTIFY_METRICS.webhookAttempts);
    expect(metrics).toMatch(/outcome="delivered"} 1/);
    expect(metrics).toMatch(/outcome="http_status"} 1/);
    expect(metrics).toMatch(/outcome="network"} 1/);
  });

  it('gives up after the sixth attempt and says so', async () => {
    hook.respond = (_req, res) => {
      res.statusCode = 500;
      res.end('boom');
    };
    await completedJob('job_2');
    start({ ladderScale: 0.0001 });
    const w = await waitFor(async () => ((await webhookOf('job_2'))?.gave_up_at ? webhookOf('job_2') : null), 15_000);
    expect(w).toMatchObject({ attempts: 6, last_status: 500, next_attempt_at: null, delivered_at: null });
    expect(w.last_error).toBe('gave up after 6 attempts: HTTP 500: boom');
    expect(hook.received).toHaveLength(6);
  });

  it('sends nothing for a running job, nor to refused targets', async () => {
    await completedJob('job_3', { status: 'running', completed_at: null });
    await completedJob('job_4', { webhook: webhookState('https://10.0.0.1/hook') });
    const resolve: Resolver = async () => [{ address: '192.168.1.20', family: 4 }];
    await completedJob('job_5', { webhook: webhookState('https://hooks.customer.example/hook') });
    const w = start({ resolve, ladderScale: 1 });
    await w.runOnce();
    expect(await webhookOf('job_3')).toMatchObject({ attempts: 0, next_attempt_at: null });
    // An IP literal in a private range is refused for good: no retry.
    const literal = await webhookOf('job_4');
    expect(literal).toMatchObject({ attempts: 1, last_status: null, next_attempt_at: null, delivered_at: null });
    expect(literal?.last_error).toMatch(/^gave up after 1 attempt: refused: 10\.0\.0\.1 is a private address/);
    // A name resolving to a private address is refused now but retried later (DNS can change).
    const named = await webhookOf('job_5');
    expect(named?.last_error).toMatch(/^refused: hooks\.customer\.example resolves to 192\.168\.1\.20/);
    expect(named?.next_attempt_at?.getTime()).toBeGreaterThan(Date.now() + 50_000);
    expect(hook.received).toHaveLength(0);
  });

  it('two workers on one database never send the same attempt twice', async () => {
    const seen = new Map<string, number>();
    hook.respond = (_req, res, n) => {
      const id = (JSON.parse(hook.received[n - 1]!.body) as JobCompletedEvent).data.job_id;
      const count = (seen.get(id) ?? 0) + 1;
      seen.set(id, count);
      // Slow enough that the other worker polls many times while this attempt is in flight.
      setTimeout(() => {
        res.statusCode = count === 1 ? 500 : 204;
        res.end();
      }, 30);
    };
    const ids = Array.from({ length: 12 }, (_, i) => `job_${100 + i}`);
    for (const id of ids) await completedJob(id);
    start({ pollIntervalMs: 5, concurrency: 4 });
    start({ pollIntervalMs: 5, concurrency: 4 });
    await waitFor(async () => (await jobs().countDocuments({ 'webhook.delivered_at': { $type: 'date' } })) === ids.length, 15_000);
    await sleep(200);
    expect(hook.received).toHaveLength(ids.length * 2);
    for (const id of ids) {
      expect(seen.get(id)).toBe(2);
      expect((await webhookOf(id))?.attempts).toBe(2);
    }
  });

  it('resumes the schedule after a restart', async () => {
    hook.respond = (_req, res, n) => {
      res.statusCode = n === 1 ? 503 : 204;
      res.end();
    };
    await completedJob('job_6');
    const first = start({ ladderScale: 0.01 }); // first retry 600 ms after the failure
    const scheduled = await waitFor(async () => {
      const w = await webhookOf('job_6');
      return w?.last_status === 503 ? w : null;
    });
    await first.stop();
    expect(scheduled.next_attempt_at).toBeInstanceOf(Date);
    // A brand-new worker (think: another process after a crash) picks up the stored schedule.
    start({ ladderScale: 0.01 });
    const done = await waitFor(async () => ((await webhookOf('job_6'))?.delivered_at ? webhookOf('job_6') : null));
    expect(done.attempts).toBe(2);
    expect(hook.received[1]!.at).toBeGreaterThanOrEqual(scheduled.next_attempt_at!.getTime());
  });

  it("retries the attempt of a worker that died mid-send once its lease runs out", async () => {
    await completedJob('job_7');
    const leaseEnd = new Date(Date.now() + 400);
    // As a crashed worker leaves it: attempt 1 claimed, outcome never written.
    await jobs().updateOne({ _id: 'job_7' }, { $set: { 'webhook.attempts': 1, 'webhook.next_attempt_at': leaseEnd } });
    start();
    const done = await waitFor(async () => ((await webhookOf('job_7'))?.delivered_at ? webhookOf('job_7') : null));
    expect(done.attempts).toBe(2);
    expect(hook.received).toHaveLength(1);
    expect(hook.received[0]!.at).toBeGreaterThanOrEqual(leaseEnd.getTime());
  });
});

describe('completion email', () => {
  const email = () => ({ transport: relay.url, from: 'Email Verification <no-reply@verify.example.com>', downloadSecret: DOWNLOAD_SECRET });
  const notifyOf = async (id: string) => (await jobs().findOne({ _id: id }))?.notify ?? null;

  it('is sent once to the account address, with the summary and a verifiable CSV link, by either of two workers', async () => {
    await completedJob('job_8', { webhook: null, notify_email: true });
    start({ email: email() });
    start({ email: email() });
    const n = await waitFor(async () => ((await notifyOf('job_8'))?.sent_at ? notifyOf('job_8') : null));
    expect(n).toMatchObject({ attempts: 1, last_error: null, next_attempt_at: null, gave_up_at: null });
    await sleep(200);
    expect(relay.inbox).toHaveLength(1);
    const mail = relay.inbox[0]!;
    expect(mail.to).toEqual(['owner@customer.example']);
    expect(mail.decoded).toMatch(/deliverable\s+2/);
    expect(mail.decoded).toMatch(/send\s+2/);
    expect(mail.decoded).toMatch(/review\s+1/);
    const link = /https:\/\/api\.example\.com\/v1\/downloads\/(job_8)\.csv\?exp=(\d+)&sig=([0-9a-f]{64})/.exec(mail.decoded);
    expect(link).not.toBeNull();
    expect(verifyDownloadSignature(link![1]!, link![2]!, link![3]!, DOWNLOAD_SECRET)).toBe(true);
  });

  it('retries on the ladder when the relay refuses, and is not sent for jobs that did not ask', async () => {
    relay.failNext = 1;
    await completedJob('job_9', { webhook: null, notify_email: true });
    await completedJob('job_10', { webhook: null, notify_email: false });
    start({ email: email() });
    const n = await waitFor(async () => ((await notifyOf('job_9'))?.sent_at ? notifyOf('job_9') : null));
    expect(n.attempts).toBe(2);
    expect(relay.inbox).toHaveLength(1);
    expect(await notifyOf('job_10')).toBeNull();
  });

  it('without a relay says so on the job and in the log, and a worker with one sends it later', async () => {
    await completedJob('job_12', { webhook: null, notify_email: true });
    await completedJob('job_13', { webhook: null, notify_email: false });
    const lines: string[] = [];
    const captured = pino({ level: 'info' }, { write: (l: string) => void lines.push(l) });
    const bare = start({ log: captured });
    const marked = await waitFor(async () => ((await notifyOf('job_12'))?.unsent_reason ? notifyOf('job_12') : null));
    expect(marked).toMatchObject({ attempts: 0, unsent_reason: 'no_smtp_relay', sent_at: null, next_attempt_at: null, gave_up_at: null });
    expect(marked.last_error).toMatch(/no SMTP relay is configured/);
    expect(await notifyOf('job_13')).toBeNull();
    const warnings = lines.map((l) => JSON.parse(l) as { level: number; msg: string; jobId?: string }).filter((l) => l.level === 40);
    expect(warnings.map((w) => w.msg)).toEqual(expect.arrayContaining([expect.stringMatching(/^completion emails are off: no SMTP relay configured/)]));
    expect(warnings.filter((w) => w.jobId === 'job_12').map((w) => w.msg)).toEqual(['completion email not sent: no SMTP relay configured (set SMTP_RELAY_URL)']);
    // Marked once, not on every pass.
    await bare.runOnce();
    expect(warnings.length).toBe(lines.map((l) => JSON.parse(l) as { level: number }).filter((l) => l.level === 40).length);

    start({ email: email() });
    const sent = await waitFor(async () => ((await notifyOf('job_12'))?.sent_at ? notifyOf('job_12') : null));
    expect(sent).toMatchObject({ attempts: 1, last_error: null });
    expect(sent.unsent_reason ?? null).toBeNull();
    expect(relay.inbox.map((m) => m.to)).toEqual([['owner@customer.example']]);
  });
});

describe('due queries', () => {
  /** Every stage name of a query plan, flattened. */
  function stages(plan: unknown): string[] {
    if (!plan || typeof plan !== 'object') return [];
    const p = plan as Record<string, unknown>;
    const own = typeof p.stage === 'string' ? [p.stage] : [];
    const kids = [p.inputStage, ...((p.inputStages as unknown[]) ?? [])];
    return [...own, ...kids.flatMap(stages), ...(typeof p.indexName === 'string' ? [`IX:${p.indexName}`] : [])];
  }

  it('are served by the notify indexes, never a collection scan', async () => {
    await completedJob('job_11', { notify_email: true });
    for (const [filter, want] of [
      [webhookDueFilter(new Date()), ['IX:webhook_due', 'IX:webhook_untried']],
      [emailDueFilter(new Date()), ['IX:notify_due', 'IX:notify_untried']],
    ] as const) {
      const explained = (await jobs().find(filter).explain('queryPlanner')) as { queryPlanner: { winningPlan: unknown } };
      const plan = stages(explained.queryPlanner.winningPlan);
      expect(plan).not.toContain('COLLSCAN');
      for (const ix of want) expect(plan).toContain(ix);
    }
  });
});
