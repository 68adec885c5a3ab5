import type { ClientSession, Collection, MongoServerError } from 'mongodb';
import type { ExportDoc, PortfolioPlan } from '@dv/contracts';
import { PortfolioError } from '../api/errors.ts';

// The plan's export limits (docs/portfolio-scanner.md "Plan limits"). Counting and then inserting
// lets every request of a burst pass the count; here an export holds numbered places instead,
// `pending_slot` (0 .. maxPending - 1, given back when it finishes) and `stored_slot` (0 ..
// maxStored - 1, until the record is deleted), each unique per account (indexes in
// collections.ts). Two requests racing for the last place insert the same number, and MongoDB
// lets one in: the limit holds across requests and replicas with no lock and no counter that a
// crash could leave wrong, since the place is part of the export's own document.

export interface ExportLimits {
  /** Exports queued or in progress at once. */
  maxPending: number;
  /** Exports kept (any status, until deleted). */
  maxStored: number;
  /** Bytes of the account's export files together. */
  maxStorageBytes: number;
  /** Rows (domains read) of one csv, zip or diff export. */
  maxRows: number;
  /** The plan's name as details show it. */
  planLabel: string;
}

export function exportLimits(plan: PortfolioPlan): ExportLimits {
  return { maxPending: plan.maxPendingExports, maxStored: plan.maxStoredExports, maxStorageBytes: plan.maxExportStorageBytes, maxRows: plan.maxExportRows, planLabel: plan.label };
}

/** A limit of the plan the worker met while writing (the export ends `failed` with this reason). */
export class ExportLimitExceeded extends Error {
  constructor(detail: string) {
    super(detail);
    this.name = 'ExportLimitExceeded';
  }
}

export const count = (n: number) => n.toLocaleString('en-US');

/** Bytes as people read them: `1 GiB`, `512 MiB`, `3.2 KiB`. */
export function bytes(n: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${u === 0 ? v : Number(v.toFixed(1))} ${units[u]}`;
}

export interface ExportUsage {
  pending: number;
  stored: number;
  storageBytes: number;
}

/** What the account's exports hold now (the API root's usage, and the checks below). */
export async function exportUsage(coll: Collection<ExportDoc>, accountId: string): Promise<ExportUsage> {
  const [r] = await coll
    .aggregate<ExportUsage>([
      { $match: { account_id: accountId } },
      { $group: { _id: null, stored: { $sum: 1 }, pending: { $sum: { $cond: [{ $in: ['$status', ['queued', 'processing']] }, 1, 0] } }, storageBytes: { $sum: '$file_size' } } },
      { $project: { _id: 0, stored: 1, pending: 1, storageBytes: 1 } },
    ])
    .toArray();
  return r ?? { pending: 0, stored: 0, storageBytes: 0 };
}

/** Refuses (PortfolioError) when the stored bytes are used up; the place limits are checked by takeSlots. */
export function checkStorage(limits: ExportLimits, usage: ExportUsage): void {
  if (usage.storageBytes >= limits.maxStorageBytes) {
    throw new PortfolioError(
      'export_limit_reached',
      `This account's export files take ${bytes(usage.storageBytes)}: at most ${bytes(limits.maxStorageBytes)} of export files stored on the ${limits.planLabel} plan. Finished exports are deleted with their files when they expire (expires_at).`,
    );
  }
}

/** Refuses an export that would read more rows than the plan allows. */
export function checkRows(limits: ExportLimits, matched: number): void {
  if (matched > limits.maxRows) {
    throw new PortfolioError('export_limit_reached', `This export matches ${count(matched)} domains: at most ${count(limits.maxRows)} rows an export on the ${limits.planLabel} plan. Narrow it with filters or a folder, and export the rest separately.`);
  }
}

const tooManyPending = (l: ExportLimits, n: number) =>
  new PortfolioError('too_many_exports', `This account has ${n} exports queued or in progress: at most ${l.maxPending} exports queued or in progress on the ${l.planLabel} plan; wait for one to finish (GET /api/v1/exports/).`);
const tooManyStored = (l: ExportLimits, n: number) =>
  new PortfolioError('export_limit_reached', `This account keeps ${n} exports: at most ${l.maxStored} exports stored on the ${l.planLabel} plan. Finished exports are deleted with their files when they expire (expires_at).`);

/** The place limits against a count read before the insert (a refusal that takes no id; insertWithinLimits decides a race). */
export function checkPlaces(limits: ExportLimits, usage: ExportUsage): void {
  if (usage.pending >= limits.maxPending) throw tooManyPending(limits, usage.pending);
  if (usage.stored >= limits.maxStored) throw tooManyStored(limits, usage.stored);
}

function firstFree(taken: ReadonlySet<number>, max: number): number | null {
  for (let i = 0; i < max; i++) if (!taken.has(i)) return i;
  return null;
}

const isSlotClash = (err: unknown) => (err as MongoServerError)?.code === 11000 && /pending_slot|stored_slot/.test(JSON.stringify((err as MongoServerError).keyPattern ?? (err as Error).message));

/**
 * Inserts the export with a free pending and a free stored place, or throws the limit's
 * PortfolioError. A clash (another request took the same place meanwhile) reads the places again;
 * each clash means another export got in, so a burst ends after at most a limit's worth of rounds.
 */
export async function insertWithinLimits(coll: Collection<ExportDoc>, doc: ExportDoc, limits: ExportLimits): Promise<void> {
  for (let round = 0; round <= limits.maxPending + limits.maxStored; round++) {
    // Exports queued before places existed count too (status and record), so they are never a way past the limit.
    const held = await coll.find({ account_id: doc.account_id }, { projection: { status: 1, pending_slot: 1, stored_slot: 1 } }).toArray();
    const pending = held.filter((e) => e.status === 'queued' || e.status === 'processing');
    if (pending.length >= limits.maxPending) throw tooManyPending(limits, pending.length);
    if (held.length >= limits.maxStored) throw tooManyStored(limits, held.length);
    const p = firstFree(new Set(held.flatMap((e) => (typeof e.pending_slot === 'number' ? [e.pending_slot] : []))), limits.maxPending);
    const s = firstFree(new Set(held.flatMap((e) => (typeof e.stored_slot === 'number' ? [e.stored_slot] : []))), limits.maxStored);
    if (p === null) throw tooManyPending(limits, pending.length);
    if (s === null) throw tooManyStored(limits, held.length);
    try {
      await coll.insertOne({ ...doc, pending_slot: p, stored_slot: s });
      return;
    } catch (err) {
      if (!isSlotClash(err)) throw err;
    }
  }
  throw tooManyPending(limits, limits.maxPending);
}

/** Bytes of the account's export files other than the job's own (the worker's checks). */
export async function otherFilesBytes(coll: Collection<ExportDoc>, job: ExportDoc, session?: ClientSession): Promise<number> {
  const [r] = await coll.aggregate<{ b: number }>([{ $match: { account_id: job.account_id, _id: { $ne: job._id } } }, { $group: { _id: null, b: { $sum: '$file_size' } } }], { session }).toArray();
  return r?.b ?? 0;
}

/** The reason an export ends failed when its file would take the account past its stored bytes. */
export function storageExceeded(job: ExportDoc, others: number, size: number): ExportLimitExceeded {
  return new ExportLimitExceeded(
    `the file (${bytes(size)} so far) and the account's other export files (${bytes(others)}) would pass the plan's ${bytes(job.max_storage_bytes!)} of stored export files; wait for older exports to expire, or narrow the export`,
  );
}
