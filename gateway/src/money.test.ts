import { MongoNetworkError, type Db } from 'mongodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { COLLECTIONS, LEDGER_IDS, type JobDoc, type JobItemDoc } from '@dv/contracts';
import type { Account, ApiKeyRecord, LedgerEntry } from '@dv/accounts';
import { JetStreamPublisher, JetStreamPublishError } from '@dv/runtime';
import type { Caller } from './services/auth.ts';
import { JobService, idempotencyKeyHash, type JobServiceOptions } from './services/jobs.ts';
import { call, startGatewayHarness, type GatewayHarness, type TestAccount } from './testing/harness.ts';

// Exactly-once charges when a store or the bus fails mid-request (docs/data-model.md "Credits"):
// MongoDB and NATS fail on cue between the items, the charge and the publish; the client then
// retries with the same Idempotency-Key, as the spec tells it to. Every case ends with one charge,
// a job that completes (the fake scheduler answers live items) and a free concurrent-job slot.

let h: GatewayHarness;
let original: JobService;
beforeAll(async () => {
  h = await startGatewayHarness({ label: 'money', scheduler: true });
  original = h.ctx.jobs;
}, 60_000);
afterAll(async () => h?.close());
afterEach(() => {
  h.ctx.jobs = original;
});

/** A publisher that lets `okBefore` publishes through, then fails every one while `fail` is set. */
function faultyPublisher(okBefore = 0) {
  const real = new JetStreamPublisher(h.nc);
  const state = { fail: true, published: 0, refused: 0 };
  return {
    state,
    publisher: {
      publish: (subject: string, data: string | Uint8Array, opts?: { msgID?: string }) => {
        if (state.fail && state.published >= okBefore) {
          state.refused++;
          return Promise.reject(new JetStreamPublishError('injected: no ack'));
        }
        state.published++;
        return real.publish(subject, data, opts);
      },
    },
  };
}

interface MongoFaults {
  /** items.insertMany fails from this call on (1-based). */
  failItemInsertFrom?: number;
  /** The charge transaction commits, then the client sees the connection drop; 'stay-down': MongoDB then stays unreachable. */
  loseCommit?: 'once' | 'stay-down';
  down?: boolean;
}

/** The run's MongoDB behind a driver that fails on cue (no failpoints: mongod runs without test commands). */
function faultyDb(db: Db, f: MongoFaults): Db {
  let itemInserts = 0;
  const down = () => new MongoNetworkError('injected: connection reset');
  const wrapCollection = (name: string) => {
    const coll = db.collection(name);
    return new Proxy(coll, {
      get(target, prop) {
        const v = Reflect.get(target, prop, target) as unknown;
        if (typeof v !== 'function') return v;
        return (...args: unknown[]) => {
          if (f.down) return Promise.reject(down());
          if (name === COLLECTIONS.jobItems.name && prop === 'insertMany' && f.failItemInsertFrom !== undefined && ++itemInserts >= f.failItemInsertFrom) return Promise.reject(down());
          return (v as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
  };
  const client = new Proxy(db.client, {
    get(target, prop) {
      if (prop === 'startSession') {
        return () => {
          const session = target.startSession();
          return new Proxy(session, {
            get(s, p) {
              if (p === 'withTransaction') {
                return async (fn: Parameters<typeof session.withTransaction>[0]) => {
                  await s.withTransaction(fn);
                  if (f.loseCommit) {
                    f.down = f.loseCommit === 'stay-down';
                    f.loseCommit = undefined;
                    throw down();
                  }
                };
              }
              const v = Reflect.get(s, p, s) as unknown;
              return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(s) : v;
            },
          });
        };
      }
      const v = Reflect.get(target, prop, target) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  return new Proxy(db, {
    get(target, prop) {
      if (prop === 'collection') return wrapCollection;
      if (prop === 'client') return client;
      const v = Reflect.get(target, prop, target) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

function service(over: Partial<JobServiceOptions>): JobService {
  return new JobService({
    db: h.db,
    publisher: new JetStreamPublisher(h.nc),
    limits: h.ctx.limits,
    log: h.ctx.log,
    // Small batches: a 5-address list is three inserts and three publish rounds.
    itemInsertBatch: 2,
    batchConcurrency: 1,
    singleWriteBatchMax: 16,
    singleWriteInFlight: 1,
    publishRetry: { attempts: 3, baseDelayMs: 10, windowMs: 1_000 },
    idempotencyWindowSeconds: 24 * 60 * 60,
    backgroundPublishMaxJobs: 4,
    ...over,
  });
}

const jobs = () => h.db.collection<JobDoc>(COLLECTIONS.jobs.name);
const items = () => h.db.collection<JobItemDoc>(COLLECTIONS.jobItems.name);
const ledger = () => h.db.collection<LedgerEntry>(COLLECTIONS.creditLedger.name);
const credits = async (a: TestAccount) => (await h.db.collection<Account>(COLLECTIONS.accounts.name).findOne({ _id: a.account._id }))!.credits;
const charges = (a: TestAccount) => ledger().find({ account_id: a.account._id, reason: 'charge' }).toArray();
const emails = (tag: string, n: number) => Array.from({ length: n }, (_, i) => `${tag}${i}@example.com`);

async function finished(a: TestAccount, jobId: string) {
  let job = (await call(h.url, `/v1/jobs/${jobId}?wait=20`, { key: a.live })).body;
  for (let i = 0; i < 3 && job.status === 'running'; i++) job = (await call(h.url, `/v1/jobs/${jobId}?wait=20`, { key: a.live })).body;
  return job;
}

/**
 * No running job holds a slot (MongoDB, the truth the Redis set is rebuilt from), and the Redis set
 * holds no slot of a try that failed: only `finishedIds`, which a rebuild drops (a slot taken in the
 * last 10 s is kept by the rebuild whatever its job did, so asking for a new job here would not tell).
 */
async function expectSlotFree(a: TestAccount, finishedIds: string[]) {
  expect(await original.runningJobIds(a.account._id, 'list')).toEqual([]);
  const held = await h.redis.zrange(`${h.env.REDIS_KEY_PREFIX}slots:list:${a.account._id}`, '0', '-1');
  expect(held.filter((id) => !finishedIds.includes(id))).toEqual([]);
}

describe('NATS fails between the charge and the publish', () => {
  it('a list published after its answer: 202 for the paid job, the rest left behind its mark for the sweep, a retry replays the same job', async () => {
    const a = await h.account({ credits: 100, limits: { concurrentJobs: 1 } });
    const nats = faultyPublisher(2);
    h.ctx.jobs = service({ publisher: nats.publisher });
    const body = { emails: emails('natsbg', 5) };
    const first = await call(h.url, '/v1/jobs', { key: a.live, body, headers: { 'Idempotency-Key': 'money-nats-bg' } });
    expect(first.status).toBe(202);
    await expect.poll(() => nats.state.refused, { timeout: 10_000 }).toBe(6); // the second batch, three tries each
    const [job, ...others] = await jobs().find({ account_id: a.account._id }).toArray();
    expect(others).toHaveLength(0);
    expect(job).toMatchObject({ _id: first.body.job_id, status: 'running', total: 5, credits_charged: 5, unpublished: { from_seq: 2 } });
    expect(await items().countDocuments({ job_id: job!._id })).toBe(5);
    nats.state.fail = false;
    const retry = await call(h.url, '/v1/jobs', { key: a.live, body, headers: { 'Idempotency-Key': 'money-nats-bg' } });
    expect(retry.status).toBe(202);
    expect(retry.body.job_id).toBe(job!._id);
    expect(await jobs().countDocuments({ account_id: a.account._id })).toBe(1);
    expect(await credits(a)).toBe(95);
    expect((await charges(a)).map((c) => c._id)).toEqual([LEDGER_IDS.charge(job!._id)]);
  }, 60_000);

  it('a list published before its answer (as when the gateway drains): the retry with the same key publishes the rest of the same job; one charge, the job completes, the slot is free', async () => {
    const a = await h.account({ credits: 100, limits: { concurrentJobs: 1 } });
    const nats = faultyPublisher(2); // the first batch goes out, then no ack comes
    h.ctx.jobs = service({ publisher: nats.publisher });
    await h.ctx.jobs.drain();
    const body = { emails: emails('nats', 5) };
    const first = await call(h.url, '/v1/jobs', { key: a.live, body, headers: { 'Idempotency-Key': 'money-nats-1' } });
    expect(first.status).toBe(503);
    expect(nats.state.refused).toBe(6); // the second batch's two messages, three tries each
    const stored = await jobs().find({ account_id: a.account._id }).toArray();
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ status: 'running', total: 5, credits_charged: 5, idem_key: idempotencyKeyHash('live', 'money-nats-1'), unpublished: { from_seq: 2 } });
    expect(await items().countDocuments({ job_id: stored[0]!._id })).toBe(5);
    expect(await credits(a)).toBe(95);

    nats.state.fail = false;
    const retry = await call(h.url, '/v1/jobs', { key: a.live, body, headers: { 'Idempotency-Key': 'money-nats-1' } });
    expect(retry.status).toBe(202);
    expect(retry.body).toMatchObject({ job_id: stored[0]!._id, credits_charged: 5, accepted: 5 });
    expect(await finished(a, stored[0]!._id)).toMatchObject({ status: 'completed', done: 5, total: 5, credits_refunded: 0 });
    expect(await credits(a)).toBe(95);
    expect((await charges(a)).map((c) => c._id)).toEqual([LEDGER_IDS.charge(stored[0]!._id)]);

    const replay = await call(h.url, '/v1/jobs', { key: a.live, body, headers: { 'Idempotency-Key': 'money-nats-1' } });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.job_id).toBe(stored[0]!._id);
    await expectSlotFree(a, [stored[0]!._id]);
  }, 60_000);

  it('a single check: the retry answers from the job the first try paid for', async () => {
    const a = await h.account({ credits: 10 });
    const nats = faultyPublisher(0);
    h.ctx.jobs = service({ publisher: nats.publisher });
    const body = { email: 'single.retry@example.com', wait: 10 };
    const first = await call(h.url, '/v1/verify', { key: a.live, body, headers: { 'Idempotency-Key': 'money-single-1' } });
    expect(first.status).toBe(503);
    expect(await credits(a)).toBe(9);
    nats.state.fail = false;
    const retry = await call(h.url, '/v1/verify', { key: a.live, body, headers: { 'Idempotency-Key': 'money-single-1' } });
    expect(retry.status).toBe(200);
    expect(retry.body.result).toMatchObject({ email: 'single.retry@example.com', status: 'deliverable' });
    expect(await jobs().countDocuments({ account_id: a.account._id })).toBe(1);
    expect(await charges(a)).toHaveLength(1);
    expect(await credits(a)).toBe(9);
  }, 60_000);
});

describe('publishing after the answer', () => {
  it('is bounded: beyond backgroundPublishMaxJobs a list publishes before its answer, and drain waits for those publishing', async () => {
    const a = await h.account({ credits: 100 });
    const real = new JetStreamPublisher(h.nc);
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    let published = 0;
    const publisher = { publish: async (subject: string, data: string | Uint8Array, opts?: { msgID?: string }) => (await gate, published++, real.publish(subject, data, opts)) };
    const svc = service({ publisher, backgroundPublishMaxJobs: 1 });
    h.ctx.jobs = svc;
    // The first job is answered while its messages wait at the gate.
    const first = await call(h.url, '/v1/jobs', { key: a.live, body: { emails: emails('bound-a', 3) } });
    expect(first.status).toBe(202);
    expect(published).toBe(0);
    // The second finds the one background place taken: its answer waits for its own messages.
    let secondAnswered = false;
    const second = call(h.url, '/v1/jobs', { key: a.live, body: { emails: emails('bound-b', 3) } }).then((r) => ((secondAnswered = true), r));
    await expect.poll(() => items().countDocuments({ account_id: a.account._id, email: /^bound-b/ })).toBe(3);
    await new Promise((r) => setTimeout(r, 300));
    expect(secondAnswered).toBe(false);
    let drained = false;
    const draining = svc.drain().then(() => (drained = true));
    await new Promise((r) => setTimeout(r, 100));
    expect(drained).toBe(false);
    open();
    expect((await second).status).toBe(202);
    await draining;
    expect(published).toBe(6);
    for (const id of [first.body.job_id, (await second).body.job_id]) {
      await expect.poll(async () => (await jobs().findOne({ _id: id }))?.unpublished, { timeout: 10_000 }).toBeNull();
      expect(await finished(a, id)).toMatchObject({ status: 'completed', done: 3 });
    }
  }, 60_000);
});

describe('MongoDB fails mid-request', () => {
  it('the charge commits but its answer is lost and MongoDB stays down: the retry finds the paid job and runs it', async () => {
    const a = await h.account({ credits: 100, limits: { concurrentJobs: 1 } });
    h.ctx.jobs = service({ db: faultyDb(h.db, { loseCommit: 'stay-down' }) });
    const body = { emails: emails('commit', 3) };
    const first = await call(h.url, '/v1/jobs', { key: a.live, body, headers: { 'Idempotency-Key': 'money-commit-1' } });
    expect(first.status).toBe(503);
    const [job, ...others] = await jobs().find({ account_id: a.account._id }).toArray();
    expect(others).toHaveLength(0);
    // Stored and paid, not published: the items outlived the failure (nothing knew it was safe to drop them).
    expect(job).toMatchObject({ status: 'running', total: 3, credits_charged: 3, unpublished: { from_seq: 0 } });
    expect(await items().countDocuments({ job_id: job!._id })).toBe(3);
    expect(await credits(a)).toBe(97);

    h.ctx.jobs = original; // MongoDB is back
    const retry = await call(h.url, '/v1/jobs', { key: a.live, body, headers: { 'Idempotency-Key': 'money-commit-1' } });
    expect(retry.status).toBe(202);
    expect(retry.body.job_id).toBe(job!._id);
    expect(await finished(a, job!._id)).toMatchObject({ status: 'completed', done: 3, credits_refunded: 0 });
    expect(await charges(a)).toHaveLength(1);
    expect(await credits(a)).toBe(97);
    await expectSlotFree(a, [job!._id]);
  }, 60_000);

  it('the commit is lost but the job can be read: the same request goes on and publishes', async () => {
    const a = await h.account({ credits: 100 });
    h.ctx.jobs = service({ db: faultyDb(h.db, { loseCommit: 'once' }) });
    const created = await call(h.url, '/v1/jobs', { key: a.live, body: { emails: emails('lost', 2) }, headers: { 'Idempotency-Key': 'money-lost-1' } });
    expect(created.status).toBe(202);
    expect(await finished(a, created.body.job_id)).toMatchObject({ status: 'completed', done: 2 });
    expect(await charges(a)).toHaveLength(1);
    expect(await credits(a)).toBe(98);
  }, 60_000);

  it('item storage fails before the charge: nothing is charged, nothing is left over, the retry charges one job', async () => {
    const a = await h.account({ credits: 100, limits: { concurrentJobs: 1 } });
    h.ctx.jobs = service({ db: faultyDb(h.db, { failItemInsertFrom: 2 }) });
    const body = { emails: emails('items', 5) };
    const first = await call(h.url, '/v1/jobs', { key: a.live, body, headers: { 'Idempotency-Key': 'money-items-1' } });
    expect(first.status).toBe(503);
    expect(await jobs().countDocuments({ account_id: a.account._id })).toBe(0);
    expect(await items().countDocuments({ account_id: a.account._id })).toBe(0);
    expect(await credits(a)).toBe(100);
    expect(await charges(a)).toHaveLength(0);

    h.ctx.jobs = original;
    const retry = await call(h.url, '/v1/jobs', { key: a.live, body, headers: { 'Idempotency-Key': 'money-items-1' } });
    expect(retry.status).toBe(202);
    expect(await finished(a, retry.body.job_id)).toMatchObject({ status: 'completed', done: 5 });
    expect(await charges(a)).toHaveLength(1);
    expect(await credits(a)).toBe(95);
    await expectSlotFree(a, [retry.body.job_id]);
  }, 60_000);
});

describe('one job per (account, Idempotency-Key) without the Redis record', () => {
  const caller = async (a: TestAccount): Promise<Caller> => {
    const account = (await h.db.collection<Account>(COLLECTIONS.accounts.name).findOne({ _id: a.account._id }))!;
    const key = (await h.db.collection<ApiKeyRecord>(COLLECTIONS.apiKeys.name).findOne({ account_id: a.account._id, mode: 'live' }))!;
    return { account, key, mode: 'live' };
  };
  const spec = (list: string[], idempotencyKey: string) => ({ kind: 'list' as const, items: list.map((email) => ({ email, ref: null, meta: null })), label: null, maxAgeDays: null, forceFresh: false, notifyEmail: false, webhookUrl: null, maxWallSeconds: null, idempotencyKey });

  it('two tries at once (the pending record lapsed): one job, one charge, both answered with it', async () => {
    const a = await h.account({ credits: 100 });
    const c = await caller(a);
    const svc = service({});
    const [x, y] = await Promise.all([svc.create(c, spec(emails('race', 4), 'money-race')), svc.create(c, spec(emails('race', 4), 'money-race'))]);
    expect(x._id).toBe(y._id);
    expect(await jobs().countDocuments({ account_id: a.account._id })).toBe(1);
    expect(await items().countDocuments({ account_id: a.account._id })).toBe(4);
    expect(await charges(a)).toHaveLength(1);
    expect(await credits(a)).toBe(96);
    expect(await finished(a, x._id)).toMatchObject({ status: 'completed', done: 4 });
  }, 60_000);

  it('a key used again after its window starts a new job', async () => {
    const a = await h.account({ credits: 100 });
    const c = await caller(a);
    const svc = service({ idempotencyWindowSeconds: 0 });
    const first = await svc.create(c, spec(emails('window', 1), 'money-window'));
    await new Promise((r) => setTimeout(r, 5));
    const second = await svc.create(c, spec(emails('window', 1), 'money-window'));
    expect(second._id).not.toBe(first._id);
    expect((await jobs().findOne({ _id: first._id }))?.idem_key).toBeUndefined();
    expect(await charges(a)).toHaveLength(2);
  }, 60_000);
});
