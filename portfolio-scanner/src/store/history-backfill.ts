import type { AnyBulkWriteOperation, Db } from 'mongodb';
import { COLLECTIONS, type AccountDomainDoc, type CorpusDomainDoc } from '@dv/contracts';
import { runOnce } from './once.ts';

// Account documents stored before each account had its own history of a name (first_seen,
// scan_count_base; docs/portfolio-scanner.md "Tenant history") get one, once per database (a
// counters document records that it ran), from what is stored: the history starts at `added_at`
// (for a name re-added after a removal that is the first add: the re-add was not recorded), and a
// `last_change_at` copied from the corpus from before then is dropped. Until it has run the
// readers use the same `added_at` and a base of 0.

const MIGRATION = 'migration:portfolio_domains.first_seen';
const BATCH = 1_000;

type Stored = Pick<AccountDomainDoc, 'added_at' | 'last_change_at'>;
type Corpus = Pick<CorpusDomainDoc, 'first_seen' | 'scan_count' | 'last_scanned'>;

/**
 * Pure. The base is exact when the account brought the name to the corpus (every corpus scan is
 * its own); otherwise it is estimated from the rescan interval: one scan per interval from
 * `added_at` to the latest scan, never more than the corpus made.
 */
export function backfilledHistory(d: Stored, c: Corpus | null, intervalS: number): Required<Pick<AccountDomainDoc, 'first_seen' | 'scan_count_base'>> & Pick<AccountDomainDoc, 'last_change_at'> {
  const last_change_at = d.last_change_at !== null && d.last_change_at >= d.added_at ? d.last_change_at : null;
  if (c === null || c.first_seen >= d.added_at) return { first_seen: d.added_at, scan_count_base: 0, last_change_at };
  const since = c.last_scanned !== null && c.last_scanned >= d.added_at ? Math.floor((c.last_scanned.getTime() - d.added_at.getTime()) / (intervalS * 1000)) + 1 : 0;
  return { first_seen: d.added_at, scan_count_base: Math.max(0, c.scan_count - since), last_change_at };
}

/** Returns how many account documents it updated (0 once it has run). */
export async function backfillAccountHistory(db: Db, intervalS: number): Promise<number> {
  return runOnce(db, MIGRATION, 0, () => backfill(db, intervalS));
}

async function backfill(db: Db, intervalS: number): Promise<number> {
  const accounts = db.collection<AccountDomainDoc>(COLLECTIONS.portfolioDomains.name);
  const corpus = db.collection<CorpusDomainDoc>(COLLECTIONS.portfolioCorpus.name);
  const cursor = accounts.find({ first_seen: { $exists: false } }, { projection: { _id: 1, domain: 1, added_at: 1, last_change_at: 1 } }).batchSize(BATCH);
  let updated = 0;
  let batch: Pick<AccountDomainDoc, '_id' | 'domain' | 'added_at' | 'last_change_at'>[] = [];
  const flush = async () => {
    const found = await corpus.find({ _id: { $in: [...new Set(batch.map((d) => d.domain))] } }, { projection: { first_seen: 1, scan_count: 1, last_scanned: 1 } }).toArray();
    const byName = new Map(found.map((c) => [c._id, c]));
    // Only where first_seen is still absent: a document re-added meanwhile has its own.
    const writes: AnyBulkWriteOperation<AccountDomainDoc>[] = batch.map((d) => ({
      updateOne: { filter: { _id: d._id, first_seen: { $exists: false } }, update: { $set: backfilledHistory(d, byName.get(d.domain) ?? null, intervalS) } },
    }));
    updated += (await accounts.bulkWrite(writes, { ordered: false })).modifiedCount;
    batch = [];
  };
  try {
    for await (const d of cursor) {
      batch.push(d);
      if (batch.length >= BATCH) await flush();
    }
    if (batch.length > 0) await flush();
  } finally {
    await cursor.close();
  }
  return updated;
}
