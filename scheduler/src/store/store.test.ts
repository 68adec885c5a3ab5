// The batched store under overlap: parallel flushes and redeliveries of the same items must still
// move each item to done once, count it once, and complete the job with exactly one event.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COLLECTIONS, type EventDoc, type JobDoc, type LatestResultDoc } from '@dv/contracts';
import { createLogger } from '@dv/runtime';
import { sandboxResult } from '@dv/verdict';
import { Finisher } from './finisher.ts';
import type { HeldItem } from '../intake/held-item.ts';
import { ResultStore, type FinishedItem } from './store.ts';
import { createTestJob, itemsOf } from '../testing/jobs.ts';
import { startHarness, until, type Harness } from '../testing/harness.ts';

let t: Harness;
let store: ResultStore;
const log = createLogger('store-test', 'silent');

beforeAll(async () => {
  t = await startHarness('store');
  store = new ResultStore({ db: t.db, nc: t.nc, log, cacheRetentionDays: 30 });
});
afterAll(async () => {
  await t?.stop();
});

const emails = ['anna@example.com', 'x.invalid@example.com', 'catchall@example.com', 'unknown1@example.com', 'full@example.com', 'bob@example.com'];

async function newJob(accountId: string) {
  const { job, items } = await createTestJob(t.db, t.nc, emails, { mode: 'sandbox', accountId, noPublish: true });
  const finished: FinishedItem[] = items.map((i) => ({ itemId: i._id, jobId: job._id, accountId, mode: 'sandbox', result: sandboxResult(i.email, new Date(), i.ref), attempts: 1 }));
  return { job, finished };
}

async function expectStoredOnce(job: JobDoc, accountId: string): Promise<void> {
  const after = (await t.db.collection<JobDoc>(COLLECTIONS.jobs.name).findOne({ _id: job._id }))!;
  expect(after.status).toBe('completed');
  expect(after.done).toBe(emails.length);
  expect(Object.values(after.counts).reduce((a, b) => a + b, 0)).toBe(emails.length);
  expect((await itemsOf(t.db, job._id)).every((i) => i.state === 'done')).toBe(true);
  expect(await t.db.collection<EventDoc>(COLLECTIONS.events.name).countDocuments({ job_id: job._id })).toBe(1);
  expect(await t.db.collection<LatestResultDoc>(COLLECTIONS.latestResults.name).countDocuments({ account_id: accountId })).toBe(emails.length);
}

describe('batched result store', () => {
  it('overlapping stores of the same items (and an item twice in one batch) count each item once', async () => {
    const { job, finished } = await newJob('acc_store_overlap');
    const half = finished.slice(0, 3);
    // Three flushes at once: the whole job, a redelivered half with a duplicate inside, and the whole job again.
    const moved = await Promise.all([store.store(finished), store.store([...half, half[0]!]), store.store(finished)]);
    expect(moved.reduce((a, b) => a + b, 0)).toBe(emails.length);
    await expectStoredOnce(job, 'acc_store_overlap');
    // A later replay moves nothing and changes nothing.
    expect(await store.store(finished)).toBe(0);
    await expectStoredOnce(job, 'acc_store_overlap');
  });

  it('a finisher with parallel flushes acks every message once its item is stored, duplicates included', async () => {
    const { job, finished } = await newJob('acc_store_finisher');
    const acks: string[] = [];
    const finisher = new Finisher({ store, log, onFinished: () => undefined, coalesceMs: 0, maxBatch: 2, parallel: 3 });
    const jobDoc = (await t.db.collection<JobDoc>(COLLECTIONS.jobs.name).findOne({ _id: job._id }))!;
    // Each item finished twice, as when a redelivered message is worked beside the original.
    for (const f of [...finished, ...finished]) {
      const msg = { ack: () => void acks.push(f.itemId), nak: () => undefined, working: () => undefined };
      const held = { msg, item: { _id: f.itemId, job_id: job._id, account_id: 'acc_store_finisher' }, mode: jobDoc.mode, settled: false, redispatches: 0 } as unknown as HeldItem;
      finisher.finish(held, f.result, f.attempts);
    }
    await until(() => finisher.backlog === 0 && acks.length === finished.length * 2, 10_000, 'all acked');
    await finisher.drain();
    await expectStoredOnce(job, 'acc_store_finisher');
  });
});
