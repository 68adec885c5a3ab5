// A job paid for but short of items: its gateway failed after the charge and before storing every
// item (gateways before 2026-11 stored items after the charge; a free single check's item write
// can fail beside its job's). Its `done` can never reach `total`, so it would stay running, hold a
// concurrent-job slot and never be refunded. The unpublished sweep meets such jobs (their publish
// mark stalls) and brings `total` down to the items stored, refunding the gap once: the ledger
// entry refund:<job>:unstored, the credits and the job's counters move in one transaction, and a
// second sweep (or replica) finds the entry and changes nothing.
import type { Db } from 'mongodb';
import { refundOnce } from '@dv/accounts';
import { COLLECTIONS, LEDGER_IDS, type JobDoc, type JobItemDoc } from '@dv/contracts';

export interface Reconciled {
  /** Items the job was created with but never stored. */
  missing: number;
  /** Credits given back by this call (0 when sandbox, or refunded before). */
  refunded: number;
}

/** Aborts the transaction: the job moved on since it was read (another sweep got there first). */
class Moved extends Error {}

export async function reconcileStoredItems(db: Db, job: JobDoc): Promise<Reconciled> {
  const stored = await db.collection<JobItemDoc>(COLLECTIONS.jobItems.name).countDocuments({ job_id: job._id });
  const missing = job.total - stored;
  if (missing <= 0) return { missing: 0, refunded: 0 };
  // Only what was charged and not already given back can be refunded.
  const refund = job.mode === 'live' ? Math.max(0, Math.min(missing, job.credits_charged - job.credits_refunded)) : 0;
  const now = new Date();
  let refunded = 0;
  const session = db.client.startSession();
  try {
    await session.withTransaction(async () => {
      refunded = 0;
      if (refund > 0) {
        const fresh = await refundOnce(db, session, { movementId: LEDGER_IDS.refundUnstored(job._id), accountId: job.account_id, amount: refund, note: `unstored: ${missing} items of ${job._id} never stored`, at: now });
        if (!fresh) throw new Moved(); // refunded before
      }
      // A job that moved on since it was read aborts the whole transaction, the refund with it.
      const res = await db
        .collection<JobDoc>(COLLECTIONS.jobs.name)
        .updateOne({ _id: job._id, status: 'running', total: job.total }, { $set: { total: stored, updated_at: now }, $inc: { credits_refunded: refund } }, { session });
      if (res.modifiedCount === 0) throw new Moved();
      refunded = refund;
    });
  } catch (err) {
    if (!(err instanceof Moved)) throw err;
    return { missing, refunded: 0 };
  } finally {
    await session.endSession();
  }
  return { missing, refunded };
}
