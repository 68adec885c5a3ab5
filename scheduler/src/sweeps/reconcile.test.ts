// A job charged for items that were never stored (its gateway failed between the charge and the
// item inserts) must not stay running forever: the unpublished sweep brings its total down to the
// items stored, refunds the gap once (ledger id refund:<job>:unstored) and the job completes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, type Account, type LedgerEntry } from '@dv/accounts';
import { COLLECTIONS, LEDGER_IDS, type JobDoc, type JobItemDoc } from '@dv/contracts';
import { sandboxResult } from '@dv/verdict';
import { reconcileStoredItems } from './reconcile.ts';
import { startHarness, type Harness } from '../testing/harness.ts';
import { createTestJob, itemsOf, waitForJob } from '../testing/jobs.ts';

let t: Harness;

beforeAll(async () => {
  t = await startHarness('reconcile');
  await t.startScheduler({ UNPUBLISHED_AFTER_MS: '300' });
}, 120_000);
afterAll(async () => {
  await t?.stop();
});

const jobs = () => t.db.collection<JobDoc>(COLLECTIONS.jobs.name);
const items = () => t.db.collection<JobItemDoc>(COLLECTIONS.jobItems.name);
const ledger = () => t.db.collection<LedgerEntry>(COLLECTIONS.creditLedger.name);
const credits = async (id: string) => (await t.db.collection<Account>(COLLECTIONS.accounts.name).findOne({ _id: id }))!.credits;
let seq = 0;
/** An account that paid `charged` credits out of 100 (the charge itself is the gateway's). */
async function paidAccount(charged: number): Promise<string> {
  const account = await createAccount(t.db, { name: `r${seq}`, email: `reconcile${seq++}@example.com`, plan: 'business', credits: 100 });
  await t.db.collection<Account>(COLLECTIONS.accounts.name).updateOne({ _id: account._id }, { $inc: { credits: -charged } });
  return account._id;
}
/** What a gateway that died part-way leaves: a publish mark at `fromSeq` that last moved a while ago. */
const strand = (jobId: string, fromSeq = 0) => jobs().updateOne({ _id: jobId }, { $set: { unpublished: { from_seq: fromSeq, at: new Date(Date.now() - 1_000) } } });
/** Items the gateway never stored. */
const unstore = (jobId: string, seqs: number[]) => items().deleteMany({ job_id: jobId, seq: { $in: seqs } });

describe('a stalled job short of stored items', () => {
  it('live, none stored: total 0, every credit back once, the job completes', async () => {
    const accountId = await paidAccount(3);
    const { job } = await createTestJob(t.db, t.nc, ['a@example.com', 'b@example.com', 'c@example.com'], { accountId, noPublish: true });
    await unstore(job._id, [0, 1, 2]);
    await strand(job._id);
    expect(await waitForJob(t.db, job._id)).toMatchObject({ status: 'completed', total: 0, done: 0, credits_charged: 3, credits_refunded: 3 });
    // The sweep completes the job, then clears its mark in the same pass.
    await expect.poll(async () => (await jobs().findOne({ _id: job._id }))?.unpublished, { timeout: 10_000 }).toBeNull();
    expect(await credits(accountId)).toBe(100);
    expect(await ledger().find({ account_id: accountId, reason: 'refund' }).toArray()).toMatchObject([{ _id: LEDGER_IDS.refundUnstored(job._id), delta: 3 }]);
  });

  it('live, some stored and answered: total down to them, only the gap refunded', async () => {
    const accountId = await paidAccount(3);
    const { job } = await createTestJob(t.db, t.nc, ['d@example.com', 'e@example.com', 'f@example.com'], { accountId, noPublish: true });
    await unstore(job._id, [1, 2]);
    // The stored item was published and answered before the gateway failed.
    await items().updateOne({ job_id: job._id, seq: 0 }, { $set: { state: 'done', result: sandboxResult('d@example.com', new Date(), null) } });
    await jobs().updateOne({ _id: job._id }, { $set: { done: 1, 'counts.deliverable': 1 } });
    await strand(job._id, 1);
    expect(await waitForJob(t.db, job._id)).toMatchObject({ status: 'completed', total: 1, done: 1, credits_refunded: 2 });
    expect(await credits(accountId)).toBe(99);
  });

  it('sandbox: the stored items are published and answered, the job completes with nothing to refund', async () => {
    const { job } = await createTestJob(t.db, t.nc, ['g@example.com', 'h.invalid@example.com', 'i@example.com'], { mode: 'sandbox', accountId: 'acc_reconcile_sb', noPublish: true });
    await unstore(job._id, [2]);
    await strand(job._id);
    expect(await waitForJob(t.db, job._id)).toMatchObject({ status: 'completed', total: 2, done: 2, credits_refunded: 0, counts: { deliverable: 1, undeliverable: 1 } });
    expect((await itemsOf(t.db, job._id)).map((i) => i.state)).toEqual(['done', 'done']);
    expect(await ledger().countDocuments({ _id: LEDGER_IDS.refundUnstored(job._id) })).toBe(0);
  });

  it('refunds once however many sweeps meet the job at once', async () => {
    const accountId = await paidAccount(4);
    // No publish mark: the running scheduler's sweep leaves this job to the calls below.
    const { job } = await createTestJob(t.db, t.nc, ['j@example.com', 'k@example.com', 'l@example.com', 'm@example.com'], { accountId, noPublish: true });
    await unstore(job._id, [1, 2, 3]);
    const runs = await Promise.all([reconcileStoredItems(t.db, job), reconcileStoredItems(t.db, job), reconcileStoredItems(t.db, job)]);
    expect(runs.map((r) => r.missing)).toEqual([3, 3, 3]);
    expect(runs.map((r) => r.refunded).sort()).toEqual([0, 0, 3]);
    // ...and later, from the job as it now reads: nothing left to reconcile.
    expect(await reconcileStoredItems(t.db, (await jobs().findOne({ _id: job._id }))!)).toEqual({ missing: 0, refunded: 0 });
    // ...or from the stale document a slow replica still holds.
    expect(await reconcileStoredItems(t.db, job)).toEqual({ missing: 3, refunded: 0 });
    expect(await jobs().findOne({ _id: job._id })).toMatchObject({ status: 'running', total: 1, credits_refunded: 3 });
    expect(await credits(accountId)).toBe(99);
    expect(await ledger().countDocuments({ account_id: accountId, reason: 'refund' })).toBe(1);
  });

  it('leaves a job with every item stored alone', async () => {
    const accountId = await paidAccount(2);
    const { job } = await createTestJob(t.db, t.nc, ['n@example.com', 'o@example.com'], { accountId, noPublish: true });
    expect(await reconcileStoredItems(t.db, job)).toEqual({ missing: 0, refunded: 0 });
    expect(await jobs().findOne({ _id: job._id })).toMatchObject({ total: 2, credits_refunded: 0 });
    expect(await credits(accountId)).toBe(98);
  });
});
