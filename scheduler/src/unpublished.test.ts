// A gateway that dies between storing a job's items and publishing them must not strand them:
// the sweep publishes items left `published: false`, once, and the job completes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COLLECTIONS, type JobItemDoc } from '@dv/contracts';
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

const items = () => t.db.collection<JobItemDoc>(COLLECTIONS.jobItems.name);

describe('items a dead gateway stored but never published', () => {
  it('are published by the sweep and the job completes with each item answered once', async () => {
    const { job } = await createTestJob(t.db, t.nc, ['a@example.com', 'b@example.com', 'c.invalid@example.com'], { mode: 'sandbox', accountId: 'acc_strand', noPublish: true });
    await items().updateMany({ job_id: job._id }, { $set: { published: false } });
    const finished = await waitForJob(t.db, job._id);
    expect(finished).toMatchObject({ status: 'completed', done: 3 });
    const stored = await itemsOf(t.db, job._id);
    expect(stored.every((i) => i.state === 'done' && i.published === true)).toBe(true);
    expect(stored.map((i) => i.result?.status)).toEqual(['deliverable', 'deliverable', 'undeliverable']);
  });

  it('does not queue an item twice when the gateway had published it but died before marking it', async () => {
    const { job, items: docs } = await createTestJob(t.db, t.nc, ['d@example.com', 'e@example.com'], { mode: 'sandbox', accountId: 'acc_strand2', noPublish: true });
    await items().updateMany({ job_id: job._id }, { $set: { published: false } });
    await publishItems(t.nc, job, docs);
    const finished = await waitForJob(t.db, job._id);
    expect(finished).toMatchObject({ status: 'completed', done: 2, counts: { deliverable: 2, undeliverable: 0, risky: 0, unknown: 0 } });
    await new Promise((r) => setTimeout(r, 800));
    expect((await t.db.collection(COLLECTIONS.jobs.name).findOne({ _id: job._id as never }))?.done).toBe(2);
    expect(await items().countDocuments({ job_id: job._id, published: false })).toBe(0);
  });
});
