// A gateway that dies between storing a job's items and publishing them must not strand them:
// the sweep publishes the queued items from the job's publish mark on, once, and the job completes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COLLECTIONS, type JobDoc } from '@dv/contracts';
import { createTestJob, itemsOf, publishItems, waitForJob } from './testing/jobs.ts';
import { startHarness, type Harness } from './testing/harness.ts';

let t: Harness;

beforeAll(async () => {
  t = await startHarness('unpublished');
  await t.startScheduler({ UNPUBLISHED_AFTER_MS: '300' });
}, 120_000);
afterAll(async () => {
  await t?.stop();
});

const jobs = () => t.db.collection<JobDoc>(COLLECTIONS.jobs.name);
/** What a gateway that died part-way leaves: a mark at `fromSeq` that last moved a while ago. */
const strand = (jobId: string, fromSeq: number) => jobs().updateOne({ _id: jobId }, { $set: { unpublished: { from_seq: fromSeq, at: new Date(Date.now() - 1_000) } } });

describe('items a dead gateway stored but never published', () => {
  it('are published by the sweep and the job completes with each item answered once', async () => {
    const { job } = await createTestJob(t.db, t.nc, ['a@example.com', 'b@example.com', 'c.invalid@example.com'], { mode: 'sandbox', accountId: 'acc_strand', noPublish: true });
    await strand(job._id, 0);
    const finished = await waitForJob(t.db, job._id);
    expect(finished).toMatchObject({ status: 'completed', done: 3, unpublished: null });
    const stored = await itemsOf(t.db, job._id);
    expect(stored.every((i) => i.state === 'done')).toBe(true);
    expect(stored.map((i) => i.result?.status)).toEqual(['deliverable', 'deliverable', 'undeliverable']);
  });

  it('does not queue an item twice when the gateway had published it but died before marking it', async () => {
    const { job, items: docs } = await createTestJob(t.db, t.nc, ['d@example.com', 'e@example.com'], { mode: 'sandbox', accountId: 'acc_strand2', noPublish: true });
    await publishItems(t.nc, job, docs);
    await strand(job._id, 0);
    const finished = await waitForJob(t.db, job._id);
    expect(finished).toMatchObject({ status: 'completed', done: 2, counts: { deliverable: 2, undeliverable: 0, risky: 0, unknown: 0 } });
    await new Promise((r) => setTimeout(r, 800));
    expect((await t.db.collection(COLLECTIONS.jobs.name).findOne({ _id: job._id as never }))?.done).toBe(2);
    expect((await jobs().findOne({ _id: job._id }))?.unpublished).toBeNull();
  });

  it('publishes only from the mark on, never items the gateway had acked', async () => {
    const { job, items: docs } = await createTestJob(t.db, t.nc, ['f@example.com', 'g@example.com', 'h@example.com', 'i@example.com'], { mode: 'sandbox', accountId: 'acc_strand3', noPublish: true });
    // The gateway got the first two acked and moved its mark, then died.
    await strand(job._id, 2);
    // The first two were never actually sent here, so only the last two can finish: the sweep
    // trusted the mark and did not publish below it.
    await expect.poll(async () => (await itemsOf(t.db, job._id)).map((i) => i.state), { timeout: 10_000 }).toEqual(['queued', 'queued', 'done', 'done']);
    await new Promise((r) => setTimeout(r, 1_000)); // a few more sweeps
    expect((await itemsOf(t.db, job._id)).map((i) => i.state)).toEqual(['queued', 'queued', 'done', 'done']);
    expect(await jobs().findOne({ _id: job._id })).toMatchObject({ status: 'running', done: 2, unpublished: null });
    await publishItems(t.nc, job, docs.slice(0, 2));
    expect(await waitForJob(t.db, job._id)).toMatchObject({ status: 'completed', done: 4 });
  });

  it('lets go of a job that is no longer running', async () => {
    const { job } = await createTestJob(t.db, t.nc, ['j@example.com'], { mode: 'sandbox', accountId: 'acc_strand4', noPublish: true });
    await jobs().updateOne({ _id: job._id }, { $set: { status: 'canceled' } });
    await strand(job._id, 0);
    await expect.poll(async () => (await jobs().findOne({ _id: job._id }))?.unpublished, { timeout: 10_000 }).toBeNull();
    expect((await itemsOf(t.db, job._id)).map((i) => i.state)).toEqual(['queued']);
  });
});
