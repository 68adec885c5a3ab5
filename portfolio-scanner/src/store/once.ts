import type { Db } from 'mongodb';
import { COLLECTIONS, type CounterDoc } from '@dv/contracts';

// Data migrations that run once per database: a counters document named `mark` records that one
// has run to the end (a run cut short runs again at the next start, so each must be idempotent).

/** Runs `migrate` unless `mark` says it has run; returns its result, or `skipped` when it had. */
export async function runOnce<T>(db: Db, mark: string, skipped: T, migrate: () => Promise<T>): Promise<T> {
  const marks = db.collection<CounterDoc>(COLLECTIONS.counters.name);
  if (await marks.findOne({ _id: mark })) return skipped;
  const result = await migrate();
  await marks.updateOne({ _id: mark }, { $set: { seq: 1 } }, { upsert: true });
  return result;
}
