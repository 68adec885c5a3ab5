import type { Db } from 'mongodb';
import { COLLECTIONS, LEDGER_IDS, type JobDoc } from '@dv/contracts';
import { refundOnce, type Account, type LedgerEntry } from '@dv/accounts';
import { ApiError } from '@dv/runtime';

// The credit movements of a job (docs/data-model.md "Credits"): the charge, its ledger entry and
// the job document in one transaction (a job exists if and only if it was paid for), and the
// once-only refund of what a cancel left unprocessed.

const accounts = (db: Db) => db.collection<Account>(COLLECTIONS.accounts.name);

export function insufficientCredits(n: number, available: number): ApiError {
  return new ApiError('insufficient_credits', `This needs ${n} ${n === 1 ? 'credit' : 'credits'} and the account has ${available}; upgrade or wait for the period reset.`, { credits_needed: n, credits_available: available });
}

/** Refuses a job the account cannot pay for before anything of it is written (the charge re-checks). */
export async function checkCredits(db: Db, accountId: string, n: number): Promise<void> {
  const current = await accounts(db).findOne({ _id: accountId }, { projection: { credits: 1 } });
  if ((current?.credits ?? 0) < n) throw insufficientCredits(n, current?.credits ?? 0);
}

/** Takes `n` credits, writes the ledger entry `charge:<job>` and inserts the job, in one transaction. */
export async function chargeAndInsert(db: Db, account: Account, job: JobDoc, n: number): Promise<void> {
  const session = db.client.startSession();
  try {
    await session.withTransaction(async () => {
      const taken = await accounts(db).updateOne({ _id: account._id, credits: { $gte: n } }, { $inc: { credits: -n }, $set: { updated_at: job.created_at } }, { session });
      if (taken.matchedCount === 0) {
        const current = await accounts(db).findOne({ _id: account._id }, { session, projection: { credits: 1 } });
        throw insufficientCredits(n, current?.credits ?? 0);
      }
      const entry: LedgerEntry = { _id: LEDGER_IDS.charge(job._id), account_id: account._id, delta: -n, reason: 'charge', note: `${job.kind} ${job._id}`, at: job.created_at };
      await db.collection<LedgerEntry>(COLLECTIONS.creditLedger.name).insertOne(entry, { session });
      await db.collection<JobDoc>(COLLECTIONS.jobs.name).insertOne(job, { session });
    });
  } finally {
    await session.endSession();
  }
}

/** A canceled job's unprocessed items back, under `refund:<job>:cancel`: never twice, whoever retries. */
export async function refundCanceled(db: Db, job: JobDoc, n: number, now: Date): Promise<void> {
  const session = db.client.startSession();
  try {
    await session.withTransaction(async () => {
      const fresh = await refundOnce(db, session, { movementId: LEDGER_IDS.refundCancel(job._id), accountId: job.account_id, amount: n, note: `cancel ${job._id}`, at: now });
      if (!fresh) return; // refunded before
      await db.collection<JobDoc>(COLLECTIONS.jobs.name).updateOne({ _id: job._id }, { $inc: { credits_refunded: n }, $set: { updated_at: now } }, { session });
    });
  } finally {
    await session.endSession();
  }
}
