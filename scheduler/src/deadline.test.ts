// The deadline sweep over more items than one batch (STORE_BATCH_MAX, the finisher's cap): each
// store transaction holds at most one batch, the leftovers are refunded exactly once in total,
// also when a sweep is cut between batches or two replicas sweep the same job at once, and the
// job completes after the last batch. Sweepers run in process against real NATS and MongoDB.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { createAccount, getAccount } from '@dv/accounts';
import { COLLECTIONS, LEDGER_IDS, type JobDoc } from '@dv/contracts';
import { createLogger } from '@dv/runtime';
import { schedulerConfigSchema } from './config.ts';
import { SCHEDULER_DEFAULTS } from './defaults.ts';
import { createSchedulerMetrics } from './metrics.ts';
import { ResultStore } from './store/store.ts';
import { Sweeper } from './sweeps/sweep.ts';
import { FAST_ENV, startHarness, type Harness } from './testing/harness.ts';
import { createTestJob, itemsOf } from './testing/jobs.ts';

let t: Harness;
const BATCH = 3;
const log = createLogger('scheduler', 'silent');

beforeAll(async () => {
  t = await startHarness('deadline');
}, 120_000);
afterAll(async () => {
  await t?.stop();
});

/** One scheduler replica's sweeper; `sizes` records the items of every store call it makes. */
function replica(batch: number = BATCH): { sweeper: Sweeper; sizes: number[] } {
  const config = schedulerConfigSchema.parse({ ...FAST_ENV, ...t.env, STORE_BATCH_MAX: String(batch) });
  const metrics = createSchedulerMetrics(new Registry());
  const store = new ResultStore({ db: t.db, nc: t.nc, log, metrics, cacheRetentionDays: 30 });
  const sizes: number[] = [];
  const storeOnce = store.store.bind(store);
  store.store = (finished, opts) => {
    sizes.push(finished.length);
    return storeOnce(finished, opts);
  };
  return { sweeper: new Sweeper({ nc: t.nc, db: t.db, config, log, store, metrics }), sizes };
}

const jobs = () => t.db.collection<JobDoc>(COLLECTIONS.jobs.name);

/** A live job of `n` unpublished items whose deadline has passed, on an account with 100 credits. */
async function expiredJob(name: string, n: number): Promise<{ job: JobDoc; accountId: string }> {
  const account = await createAccount(t.db, { name, email: `${name.toLowerCase()}@example.com`, plan: 'business', credits: 100 });
  const emails = Array.from({ length: n }, (_, i) => `user${i}@example.com`);
  const { job } = await createTestJob(t.db, t.nc, emails, { accountId: account._id, maxWallSeconds: 60, noPublish: true });
  await jobs().updateOne({ _id: job._id }, { $set: { deadline_at: new Date(Date.now() - 1_000) } });
  return { job: (await jobs().findOne({ _id: job._id }))!, accountId: account._id };
}

async function expectSettledOnce(job: JobDoc, accountId: string, n: number): Promise<void> {
  const final = (await jobs().findOne({ _id: job._id }))!;
  expect(final).toMatchObject({ status: 'completed', done: n, credits_refunded: n, deadline_settled: true, deadline_refunded: true });
  expect(final.counts).toMatchObject({ unknown: n, deliverable: 0 });
  const items = await itemsOf(t.db, job._id);
  expect(items.every((i) => i.state === 'done' && i.result?.sub_status === 'deadline')).toBe(true);
  expect((await getAccount(t.db, accountId)).credits).toBe(100 + n);
  // Every movement of the account but its initial grant: one refund of all n items.
  const movements = await t.db.collection<{ _id: string; account_id: string; delta: number }>(COLLECTIONS.creditLedger.name).find({ account_id: accountId, _id: { $ne: `grant:${accountId}:initial` } }).toArray();
  expect(movements).toEqual([expect.objectContaining({ _id: LEDGER_IDS.refundDeadline(job._id), delta: n })]);
  expect(await t.db.collection(COLLECTIONS.events.name).countDocuments({ job_id: job._id })).toBe(1);
}

describe('the deadline sweep in batches', () => {
  it('a deadline over 25,000 items settles in batches of the default cap, refunded once', async () => {
    const n = 25_000;
    const { job, accountId } = await expiredJob('Large', n);
    const { sweeper, sizes } = replica(SCHEDULER_DEFAULTS.storeBatchMax);
    await sweeper.deadlines();
    expect(sizes.length).toBe(Math.ceil(n / SCHEDULER_DEFAULTS.storeBatchMax));
    expect(Math.max(...sizes)).toBeLessThanOrEqual(SCHEDULER_DEFAULTS.storeBatchMax);
    await expectSettledOnce(job, accountId, n);
  }, 600_000);

  it('ends the leftovers in transactions of at most one batch, refunds once and completes the job', async () => {
    const { job, accountId } = await expiredJob('Batches', 8);
    const { sweeper, sizes } = replica();
    await sweeper.deadlines();
    expect(sizes).toEqual([3, 3, 2]);
    await expectSettledOnce(job, accountId, 8);
    // Later sweeps find nothing to do and refund nothing more.
    await sweeper.deadlines();
    await sweeper.deadlines();
    expect(sizes).toEqual([3, 3, 2]);
    await expectSettledOnce(job, accountId, 8);
  });

  it('a sweep cut between batches refunds nothing yet; the next replica ends the rest and refunds once', async () => {
    const { job, accountId } = await expiredJob('Interrupted', 7);
    // What a replica that died part-way leaves: the job marked as being settled, two batches ended.
    await jobs().updateOne({ _id: job._id }, { $set: { deadline_settled: false } });
    const first = replica();
    expect(await first.sweeper.endDeadlineBatch(job)).toBe(3);
    expect(await first.sweeper.endDeadlineBatch(job)).toBe(3);
    const partway = (await jobs().findOne({ _id: job._id }))!;
    expect(partway).toMatchObject({ status: 'running', done: 6, credits_refunded: 0, deadline_settled: false });
    expect((await getAccount(t.db, accountId)).credits).toBe(100);
    // Nothing else completes a job whose deadline is being settled.
    await replica().sweeper.retries();
    expect((await jobs().findOne({ _id: job._id }))!.status).toBe('running');

    const second = replica();
    await second.sweeper.deadlines();
    expect(second.sizes).toEqual([1]);
    await expectSettledOnce(job, accountId, 7);
    await first.sweeper.deadlines();
    await expectSettledOnce(job, accountId, 7);
  });

  it('two replicas sweeping the same job at once refund it once', async () => {
    const { job, accountId } = await expiredJob('Concurrent', 10);
    const a = replica();
    const b = replica();
    await Promise.all([a.sweeper.deadlines(), b.sweeper.deadlines()]);
    for (const size of [...a.sizes, ...b.sizes]) expect(size).toBeLessThanOrEqual(BATCH);
    await expectSettledOnce(job, accountId, 10);
  });
});
