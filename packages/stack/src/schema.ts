import type { Db } from 'mongodb';
import { ALL_COLLECTIONS } from '@dv/contracts';
import { ensureCollections } from '@dv/runtime';

/**
 * Creates every collection and index once, before any service starts. Services apply the same
 * schema at their own start (idempotently), but five processes creating the same collections at
 * the same moment crash the Windows build of mongod that the offline route runs under wine (a
 * write-conflict path that a native mongod survives), so the launcher goes first.
 */
export async function applySchema(db: Db): Promise<void> {
  await ensureCollections(db, ALL_COLLECTIONS);
}
