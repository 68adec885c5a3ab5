import type { ClientSession, Db, ObjectId } from 'mongodb';
import { COLLECTIONS, newId, PORTFOLIO_COUNTERS, PORTFOLIO_PLANS, type CounterDoc, type ExportDoc, type PortfolioPlanName } from '@dv/contracts';
import { invalidInput } from '../api/envelope.ts';
import { PortfolioError } from '../api/errors.ts';
import { zodIssues } from '@dv/runtime';
import { exportRequestSchema, normalizeParameters, type ExportRequest } from './params.ts';
import { checkPlaces, checkRows, checkStorage, exportUsage, insertWithinLimits, otherFilesBytes, storageExceeded, type ExportLimits } from './quota.ts';
import { countDomains } from './rows.ts';
import { deleteFile } from './sink.ts';
import type { z } from 'zod';

// The export queue in MongoDB (docs/portfolio-scanner.md "Exports"): the API inserts a `queued`
// job; any worker replica claims the oldest queued one (or one whose worker's lease lapsed) with
// one findOneAndUpdate, renews its lease while it writes, and completes or fails it. Every write
// of a worker is conditional on still holding the job, so a worker that lost its lease (it stalled
// and another took over) cannot overwrite the new holder's outcome.

export const exportsColl = (db: Db) => db.collection<ExportDoc>(COLLECTIONS.portfolioExports.name);

export interface QueueContext {
  db: Db;
  /** The caller's plan's limits (quota.ts exportLimits). */
  limits: ExportLimits;
}

export interface QueuedExport {
  task_id: string;
  status: 'queued';
  id: number;
}

/**
 * Queues an export for `account` (the REST route and the MCP connector's "queue a CSV export"
 * tool). `params` is the request body as a client sent it (validated here: PortfolioError
 * `validation_error` when it is not valid; `too_many_exports` or `export_limit_reached` past the
 * plan's limits, quota.ts).
 */
export async function queueExport(ctx: QueueContext, account: { _id: string; portfolio_plan?: PortfolioPlanName | null }, params: z.input<typeof exportRequestSchema> | ExportRequest = {}, now = new Date()): Promise<QueuedExport> {
  const parsed = exportRequestSchema.safeParse(params);
  if (!parsed.success) throw invalidInput(zodIssues('body', parsed.error, params));
  const { type, parameters } = normalizeParameters(parsed.data, now);
  if (parameters.scope === 'global' && !PORTFOLIO_PLANS[account.portfolio_plan ?? 'business']?.globalDomainView) {
    throw new PortfolioError('validation_error', 'body.scope: the global domain view is part of the Enterprise Max Premium plan; use scope account.');
  }
  const limits = ctx.limits;
  const usage = await exportUsage(exportsColl(ctx.db), account._id);
  // Cheap refusals first (no id taken); insertWithinLimits decides under concurrency.
  checkPlaces(limits, usage);
  checkStorage(limits, usage);
  // pdf cuts its own table; the others write every row they match.
  if (type !== 'pdf') checkRows(limits, await countDomains(ctx.db, { accountId: account._id, parameters, batchRows: 0 }));
  const counter = await ctx.db.collection<CounterDoc>(COLLECTIONS.counters.name).findOneAndUpdate({ _id: PORTFOLIO_COUNTERS.exports(account._id) }, { $inc: { seq: 1 } }, { upsert: true, returnDocument: 'after' });
  const doc: ExportDoc = {
    _id: newId('export', now.getTime()),
    id: (counter as CounterDoc).seq,
    account_id: account._id,
    export_type: type,
    status: 'queued',
    parameters,
    row_count: 0,
    file_size: 0,
    rows_done: 0,
    rows_expected: null,
    file_id: null,
    file_name: null,
    content_type: null,
    error: null,
    attempts: 0,
    lease_until: null,
    worker: null,
    created_at: now,
    started_at: null,
    completed_at: null,
    expires_at: null,
    max_rows: limits.maxRows,
    max_storage_bytes: limits.maxStorageBytes,
  };
  await insertWithinLimits(exportsColl(ctx.db), doc, limits);
  return { task_id: doc._id, status: 'queued', id: doc.id };
}

/** The oldest claimable export (queued, or processing with a lapsed lease and attempts left), now this worker's. */
export async function claimExport(db: Db, worker: string, leaseMs: number, maxAttempts: number, now = new Date()): Promise<ExportDoc | null> {
  return exportsColl(db).findOneAndUpdate(
    { $or: [{ status: 'queued' }, { status: 'processing', lease_until: { $lt: now } }], attempts: { $lt: maxAttempts } },
    { $set: { status: 'processing', worker, lease_until: new Date(now.getTime() + leaseMs), started_at: now, rows_done: 0 }, $inc: { attempts: 1 } },
    { sort: { created_at: 1 }, returnDocument: 'after' },
  );
}

export class LeaseLost extends Error {
  constructor(taskId: string) {
    super(`export ${taskId}: another worker holds it now`);
    this.name = 'LeaseLost';
  }
}

const held = (job: ExportDoc, worker: string) => ({ _id: job._id, worker, status: 'processing' as const });

// A finished export gives its pending place back in the same write that finishes it.
const FINISHED = { pending_slot: '' } as const;

async function update(db: Db, job: ExportDoc, worker: string, set: Partial<ExportDoc>, unset?: typeof FINISHED, session?: ClientSession): Promise<void> {
  const r = await exportsColl(db).updateOne(held(job, worker), unset ? { $set: set, $unset: unset } : { $set: set }, { session });
  if (r.matchedCount === 0) throw new LeaseLost(job._id);
}

export function beginAttempt(db: Db, job: ExportDoc, worker: string, file: { id: ObjectId; name: string; contentType: string }, expected: number): Promise<void> {
  return update(db, job, worker, { file_id: file.id, file_name: file.name, content_type: file.contentType, rows_expected: expected });
}

export function renewLease(db: Db, job: ExportDoc, worker: string, leaseMs: number, rowsDone: number, now = new Date()): Promise<void> {
  return update(db, job, worker, { lease_until: new Date(now.getTime() + leaseMs), rows_done: rowsDone });
}

/**
 * Completes the export; one whose file would take the account's export files past the bytes it
 * was queued with throws ExportLimitExceeded instead. Completions of one account run one at a
 * time for that check: each first writes the account's storage document in its transaction, so a
 * second one completing meanwhile conflicts, is retried, and then counts the first one's file.
 */
export async function completeExport(db: Db, job: ExportDoc, worker: string, r: { rowCount: number; fileSize: number }, ttlS: number, now = new Date()): Promise<void> {
  const set: Partial<ExportDoc> = { status: 'completed', row_count: r.rowCount, file_size: r.fileSize, rows_done: job.rows_expected ?? r.rowCount, completed_at: now, lease_until: null, expires_at: new Date(now.getTime() + ttlS * 1000) };
  if (job.max_storage_bytes === undefined) return update(db, job, worker, set, FINISHED);
  const lock = { _id: PORTFOLIO_COUNTERS.exportStorage(job.account_id) };
  const counters = db.collection<CounterDoc>(COLLECTIONS.counters.name);
  // Made outside the transaction: two transactions inserting it at once would clash on its _id.
  await counters.updateOne(lock, { $setOnInsert: { seq: 0 } }, { upsert: true });
  const session = db.client.startSession();
  try {
    await session.withTransaction(async () => {
      await counters.updateOne(lock, { $inc: { seq: 1 } }, { session });
      const others = await otherFilesBytes(exportsColl(db), job, session);
      if (others + r.fileSize > job.max_storage_bytes!) throw storageExceeded(job, others, r.fileSize);
      await update(db, job, worker, set, FINISHED, session);
    });
  } finally {
    await session.endSession();
  }
}

export function failExport(db: Db, job: ExportDoc, worker: string, reason: string, ttlS: number, now = new Date()): Promise<void> {
  return update(db, job, worker, { status: 'failed', error: reason, completed_at: now, lease_until: null, expires_at: new Date(now.getTime() + ttlS * 1000) }, FINISHED);
}

/**
 * Gives the job back to the queue at once, so another replica takes it now: a stopping worker's
 * (`refund`: not counted as an attempt) or one interrupted by a backing service (counted).
 */
export async function releaseExport(db: Db, job: ExportDoc, worker: string, refund: boolean): Promise<void> {
  await exportsColl(db).updateOne(held(job, worker), { $set: { status: 'queued', worker: null, lease_until: null, rows_done: 0 }, $inc: { attempts: refund ? -1 : 0 } });
}

/**
 * Housekeeping any worker replica runs: exports whose worker died on every attempt end `failed`
 * with the reason; finished exports past `expires_at` are deleted with their file.
 */
export async function sweepExports(db: Db, opts: { maxAttempts: number; ttlS: number; batch: number }, now = new Date()): Promise<{ abandoned: number; expired: number }> {
  const coll = exportsColl(db);
  let abandoned = 0;
  for (const job of await coll.find({ status: 'processing', lease_until: { $lt: now }, attempts: { $gte: opts.maxAttempts } }).limit(opts.batch).toArray()) {
    const r = await coll.updateOne(
      { _id: job._id, status: 'processing', lease_until: job.lease_until },
      { $set: { status: 'failed', error: `the export worker stopped during each of ${job.attempts} attempts (crash or restart); queue the export again`, completed_at: now, lease_until: null, expires_at: new Date(now.getTime() + opts.ttlS * 1000) }, $unset: FINISHED },
    );
    if (r.modifiedCount === 1) {
      abandoned++;
      if (job.file_id) await deleteFile(db, job.file_id as ObjectId);
    }
  }
  let expired = 0;
  for (const job of await coll.find({ expires_at: { $lte: now } }).limit(opts.batch).toArray()) {
    if (job.file_id) await deleteFile(db, job.file_id as ObjectId);
    expired += (await coll.deleteOne({ _id: job._id, expires_at: { $lte: now } })).deletedCount;
  }
  return { abandoned, expired };
}
