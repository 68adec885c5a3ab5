import type { AnyBulkWriteOperation, ClientSession, Db } from 'mongodb';
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
import { withCurrentGateway } from './gateway-migration.ts';
import { nextDueAt } from './schedule.ts';
import { tldOf } from './names.ts';

// Storing scans (docs/portfolio-scanner.md "Data model"): the corpus result, its change records
// and the summary fields of every account watching the domain, in one MongoDB transaction (one per
// group of scans a worker stores together), at most once per (domain, scan slot). A redelivered message, a second worker on the same slot or a late
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

export interface ScanToStore {
  domain: string;
  slot: number;
  outcome: ScanOutcome;
  /** Set `last_full_dkim_at` to this when stored (the scan swept every DKIM selector). */
  fullDkimSweepAt?: Date;
}

export async function storeScan(db: Db, domain: string, slot: number, outcome: ScanOutcome, opts: StoreScanOptions): Promise<StoreScanResult> {
  const [result] = await storeScans(db, [{ domain, slot, outcome }], opts);
  return result as StoreScanResult;
}

/**
 * Stores many scans in one transaction (a worker under load groups what finished together: a
 * round trip per step for the group instead of per domain). Each scan is stored exactly as
 * storeScan would: at most once per (domain, slot), a later slot of the same domain in the group
 * winning over an earlier one. Results in the order of `scans`.
 */
export async function storeScans(db: Db, scans: readonly ScanToStore[], opts: StoreScanOptions): Promise<StoreScanResult[]> {
  if (scans.length === 0) return [];
  const now = opts.now ?? new Date();
  const corpus = db.collection<CorpusDomainDoc>(COLLECTIONS.portfolioCorpus.name);
  // Of several scans of one domain, only the latest slot can be stored.
  const latest = new Map<string, number>();
  scans.forEach((s, i) => {
    const j = latest.get(s.domain);
    if (j === undefined || (scans[j] as ScanToStore).slot < s.slot) latest.set(s.domain, i);
  });
  const session = db.client.startSession();
  try {
    return await session.withTransaction(async () => {
      const prevs = new Map((await corpus.find({ _id: { $in: [...latest.keys()] } }, { session }).toArray()).map((d) => [d._id, d]));
      const results: StoreScanResult[] = scans.map(() => ({ stored: false, changes: [] }));
      const corpusWrites: AnyBulkWriteOperation<CorpusDomainDoc>[] = [];
      const summaryWrites: AnyBulkWriteOperation<AccountDomainDoc>[] = [];
      const pending: { index: number; diff: ReturnType<typeof diffScan>; prev: CorpusDomainDoc | null }[] = [];
      for (const [domain, index] of latest) {
        const { slot } = scans[index] as ScanToStore;
        const prev = prevs.get(domain) ?? null;
        const watched = (prev?.watchers ?? 0) > 0;
        if (prev !== null && prev.last_slot !== null && prev.last_slot >= slot) {
          // Already stored. A due time left in the past (a domain re-added in a slot it was already
          // scanned in) would make the planner publish it again and again: move it on.
          if (watched && (prev.next_scan_at === null || prev.next_scan_at <= now)) {
            corpusWrites.push({ updateOne: { filter: { _id: domain }, update: { $set: { next_scan_at: nextDueAt(domain, opts.intervalS, now) } } } });
          }
          continue;
        }
        const { outcome } = scans[index] as ScanToStore;
        // A change is dated by the scan that saw it, not by when the store ran.
        const before = prev?.result ? withCurrentGateway(domain, prev.result) : null;
        pending.push({ index, prev, diff: diffScan(before, outcome, outcome.observation.scanned_at, prev?.unknown_fields ?? []) });
      }
      const changeCount = pending.reduce((n, p) => n + p.diff.changes.length, 0);
      let nextId = changeCount > 0 ? (await takeChangeIds(db, session, changeCount)) : 0;
      const allChanges: ChangeDoc[] = [];
      /** Domains whose account summaries differ in `scanned_at` alone (most rescans): one update for all. */
      const fresh: { domain: string; scannedAt: Date }[] = [];
      for (const { index, prev, diff } of pending) {
        const { domain, slot, outcome, fullDkimSweepAt } = scans[index] as ScanToStore;
        const detectedAt = outcome.observation.scanned_at;
        const changes = changeDocs(domain, slot, diff.changes, detectedAt, nextId);
        nextId += changes.length;
        allChanges.push(...changes);
        const watched = (prev?.watchers ?? 0) > 0;
        const lastChangeAt = changes.length > 0 ? detectedAt : (prev?.last_change_at ?? null);
        corpusWrites.push({
          updateOne: {
            filter: { _id: domain },
            update: {
              $set: {
                result: diff.result,
                unknown_fields: diff.unknown,
                last_scanned: diff.result.scanned_at,
                last_slot: slot,
                next_scan_at: watched ? nextDueAt(domain, opts.intervalS, now) : null,
                last_change_at: lastChangeAt,
                ...(fullDkimSweepAt ? { last_full_dkim_at: fullDkimSweepAt } : {}),
              },
              $inc: { scan_count: 1 },
              $setOnInsert: { tld: tldOf(domain), first_seen: now, watchers: 0 },
            },
            upsert: true,
          },
        });
        const summary = accountDomainSummary(diff.result, lastChangeAt);
        if (prev?.result && sameSummaryButTime(accountDomainSummary(prev.result, prev.last_change_at), summary)) fresh.push({ domain, scannedAt: summary.scanned_at as Date });
        else summaryWrites.push({ updateMany: { filter: { domain, status: { $ne: 'removed' } }, update: { $set: changes.length > 0 ? summary : withoutLastChange(summary) } } });
        results[index] = { stored: true, changes };
      }
      if (fresh.length > 0) summaryWrites.push(freshnessWrite(fresh));
      if (corpusWrites.length > 0) await corpus.bulkWrite(corpusWrites, { ordered: false, session });
      if (allChanges.length > 0) await db.collection<ChangeDoc>(COLLECTIONS.portfolioChanges.name).insertMany(allChanges, { session });
      if (summaryWrites.length > 0) await db.collection<AccountDomainDoc>(COLLECTIONS.portfolioDomains.name).bulkWrite(summaryWrites, { ordered: false, session });
      return results;
    });
  } finally {
    await session.endSession();
  }
}

type Summary = ReturnType<typeof accountDomainSummary>;

/**
 * A scan with no change leaves each account's `last_change_at` as it is: the corpus's may be from
 * before an account added the name, and an account sees only changes since then.
 */
function withoutLastChange(summary: Summary): Omit<Summary, 'last_change_at'> {
  const rest: Partial<Summary> = { ...summary };
  delete rest.last_change_at;
  return rest as Omit<Summary, 'last_change_at'>;
}

function sameSummaryButTime(a: Summary, b: Summary): boolean {
  for (const k of Object.keys(b) as (keyof Summary)[]) {
    if (k === 'scanned_at') continue;
    const x = a[k];
    const y = b[k];
    if (x instanceof Date && y instanceof Date ? x.getTime() !== y.getTime() : x !== y) return false;
  }
  return true;
}

/**
 * One update of `scanned_at` in the summaries of every account watching these domains, each its
 * own scan's time (picked by the document's `domain` from two lists: MongoDB 7.0's $getField
 * takes only a constant name). A per-domain update each cost MongoDB about as much as the corpus
 * write itself (the per-command work of an update, not the bytes: docs/portfolio-scanner.md "Data model").
 */
function freshnessWrite(fresh: readonly { domain: string; scannedAt: Date }[]): AnyBulkWriteOperation<AccountDomainDoc> {
  const domains = fresh.map((f) => f.domain);
  const times = fresh.map((f) => f.scannedAt);
  return {
    updateMany: {
      filter: { domain: { $in: domains }, status: { $ne: 'removed' } },
      update: [{ $set: { scanned_at: { $arrayElemAt: [{ $literal: times }, { $indexOfArray: [{ $literal: domains }, '$domain'] }] } } }],
    },
  };
}

/** `count` global change ids from the counter, inside the transaction; returns the first. */
async function takeChangeIds(db: Db, session: ClientSession, count: number): Promise<number> {
  const counter = await db
    .collection<CounterDoc>(COLLECTIONS.counters.name)
    .findOneAndUpdate({ _id: PORTFOLIO_COUNTERS.changes }, { $inc: { seq: count } }, { upsert: true, returnDocument: 'after', session });
  return (counter as CounterDoc).seq - count + 1;
}

/** Change records with global integer ids from `firstId` on (taken from the counter in the transaction). */
function changeDocs(domain: string, slot: number, changes: FieldChange[], detectedAt: Date, firstId: number): ChangeDoc[] {
  const expiresAt = new Date(detectedAt.getTime() + CHANGE_RETENTION_DAYS * DAY_MS);
  return changes.map((c, i) => ({
    _id: changeId(domain, slot, c.field_name),
    id: firstId + i,
    domain_name: domain,
    field_name: c.field_name,
    old_value: c.old_value,
    new_value: c.new_value,
    detected_at: detectedAt,
    slot,
    expires_at: expiresAt,
  }));
}
