import type { ClientSession, Db } from 'mongodb';
import {
  accountDomainSummary,
  CHANGE_RETENTION_DAYS,
  changeId,
  COLLECTIONS,
  PORTFOLIO_COUNTERS,
  type AccountDomainDoc,
  type ChangeDoc,
  type CorpusDomainDoc,
  type CounterDoc,
  type ScanOutcome,
} from '@dv/contracts';
import { diffScan, type FieldChange } from './changes.ts';
import { nextDueAt } from './schedule.ts';
import { tldOf } from './names.ts';

// Storing one scan (docs/portfolio-scanner.md "Data model"): the corpus result, its change records
// and the summary fields of every account watching the domain, in one MongoDB transaction, at most
// once per (domain, scan slot). A redelivered message, a second worker on the same slot or a late
// message for an older slot finds `last_slot` at or past its slot and writes nothing: the
// transaction reads the corpus document and writes it, so two stores of one domain conflict and
// the retried one sees the other's slot.

const DAY_MS = 86_400_000;

export interface StoreScanOptions {
  /** PORTFOLIO_RESCAN_INTERVAL_S: the next due time is the domain's next phase point. */
  intervalS: number;
  now?: Date;
}

export interface StoreScanResult {
  /** False when this slot (or a later one) was already stored: nothing was written. */
  stored: boolean;
  changes: ChangeDoc[];
}

export async function storeScan(db: Db, domain: string, slot: number, outcome: ScanOutcome, opts: StoreScanOptions): Promise<StoreScanResult> {
  const now = opts.now ?? new Date();
  const corpus = db.collection<CorpusDomainDoc>(COLLECTIONS.portfolioCorpus.name);
  const session = db.client.startSession();
  try {
    return await session.withTransaction(async () => {
      const prev = await corpus.findOne({ _id: domain }, { session });
      const watched = (prev?.watchers ?? 0) > 0;
      const nextScanAt = watched ? nextDueAt(domain, opts.intervalS, now) : null;
      if (prev !== null && prev.last_slot !== null && prev.last_slot >= slot) {
        // Already stored. A due time left in the past (a domain re-added in a slot it was already
        // scanned in) would make the planner publish it again and again: move it on.
        if (watched && (prev.next_scan_at === null || prev.next_scan_at <= now)) {
          await corpus.updateOne({ _id: domain }, { $set: { next_scan_at: nextScanAt } }, { session });
        }
        return { stored: false, changes: [] };
      }

      // A change is dated by the scan that saw it, not by when the store ran.
      const detectedAt = outcome.observation.scanned_at;
      const diff = diffScan(prev?.result ?? null, outcome, detectedAt, prev?.unknown_fields ?? []);
      const changes = await changeDocs(db, session, domain, slot, diff.changes, detectedAt);
      const lastChangeAt = changes.length > 0 ? detectedAt : (prev?.last_change_at ?? null);
      await corpus.updateOne(
        { _id: domain },
        {
          $set: { result: diff.result, unknown_fields: diff.unknown, last_scanned: diff.result.scanned_at, last_slot: slot, next_scan_at: nextScanAt, last_change_at: lastChangeAt },
          $inc: { scan_count: 1 },
          $setOnInsert: { tld: tldOf(domain), first_seen: now, watchers: 0 },
        },
        { upsert: true, session },
      );
      if (changes.length > 0) await db.collection<ChangeDoc>(COLLECTIONS.portfolioChanges.name).insertMany(changes, { session });
      await db
        .collection<AccountDomainDoc>(COLLECTIONS.portfolioDomains.name)
        .updateMany({ domain, status: { $ne: 'removed' } }, { $set: accountDomainSummary(diff.result, lastChangeAt) }, { session });
      return { stored: true, changes };
    });
  } finally {
    await session.endSession();
  }
}

/** Change records with global integer ids, taken from the counter inside the transaction. */
async function changeDocs(db: Db, session: ClientSession, domain: string, slot: number, changes: FieldChange[], detectedAt: Date): Promise<ChangeDoc[]> {
  if (changes.length === 0) return [];
  const counter = await db
    .collection<CounterDoc>(COLLECTIONS.counters.name)
    .findOneAndUpdate({ _id: PORTFOLIO_COUNTERS.changes }, { $inc: { seq: changes.length } }, { upsert: true, returnDocument: 'after', session });
  const last = (counter as CounterDoc).seq;
  const expiresAt = new Date(detectedAt.getTime() + CHANGE_RETENTION_DAYS * DAY_MS);
  return changes.map((c, i) => ({
    _id: changeId(domain, slot, c.field_name),
    id: last - changes.length + 1 + i,
    domain_name: domain,
    field_name: c.field_name,
    old_value: c.old_value,
    new_value: c.new_value,
    detected_at: detectedAt,
    slot,
    expires_at: expiresAt,
  }));
}
