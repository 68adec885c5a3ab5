import type { Db } from 'mongodb';
import { COLLECTIONS, FREE_PLAN_MONTHLY_CREDITS } from '@dv/contracts';
import type { Account, LedgerEntry } from './model.ts';

// The Free plan's monthly allowance: once per calendar month (UTC) a Free account's balance is
// topped up to FREE_PLAN_MONTHLY_CREDITS, never above. The month's ledger entry is written even
// when nothing moves (a balance already at the allowance), so spending later in the month never
// triggers a second top-up. The entry's id names the month: two replicas topping up at once
// record one movement.

export function allowanceMovementId(accountId: string, at: Date): string {
  return `grant:${accountId}:free:${at.toISOString().slice(0, 7)}`;
}

/** Tops the account up for the month of `at` when it is on Free and has not been topped up yet; returns the credits added. */
export async function grantMonthlyAllowance(db: Db, account: Pick<Account, '_id' | 'plan'>, at = new Date()): Promise<number> {
  if (account.plan !== 'free') return 0;
  const ledger = db.collection<LedgerEntry>(COLLECTIONS.creditLedger.name);
  const accounts = db.collection<Account>(COLLECTIONS.accounts.name);
  const _id = allowanceMovementId(account._id, at);
  if (await ledger.countDocuments({ _id }, { limit: 1 })) return 0;
  const session = db.client.startSession();
  let added = 0;
  try {
    await session.withTransaction(async () => {
      added = 0;
      const current = await accounts.findOne({ _id: account._id }, { session, projection: { credits: 1, plan: 1 } });
      if (!current || current.plan !== 'free') return;
      const delta = Math.max(0, FREE_PLAN_MONTHLY_CREDITS - current.credits);
      const entry: Omit<LedgerEntry, '_id'> = { account_id: account._id, delta, reason: 'grant', note: `Free plan allowance for ${_id.slice(-7)}`, at };
      const recorded = await ledger.updateOne({ _id }, { $setOnInsert: entry }, { upsert: true, session });
      if (recorded.upsertedCount === 0 || delta === 0) return;
      await accounts.updateOne({ _id: account._id }, { $inc: { credits: delta }, $set: { updated_at: at } }, { session });
      added = delta;
    });
  } finally {
    await session.endSession();
  }
  return added;
}
