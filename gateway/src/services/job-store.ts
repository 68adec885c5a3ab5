// Writing a job's documents before its messages go out (docs/data-model.md "Flow of one item"):
// its items in batches, then the job document with its charge as one transaction (credits.ts),
// or, for a free single check, job and item together in a group commit. Apart from jobs.ts
// because these writes decide whether a job exists, which its caller must know exactly to give
// a slot and a daily cap back or not (an error whose commit may have happened is marked so).
import { MongoBulkWriteError, MongoServerError, type Db } from 'mongodb';
import { COLLECTIONS, itemId, type JobDoc, type JobItemDoc } from '@dv/contracts';
import type { Account } from '@dv/accounts';
import { ApiError, type Logger } from '@dv/runtime';
import { Coalescer } from './coalescer.ts';
import type { IntakeItem } from './intake.ts';
import { chargeAndInsert } from './credits.ts';

/** What storing (and publishing, job-publish.ts) a job's documents needs of JobServiceOptions. */
export interface JobStoreOptions {
  db: Db;
  log: Logger;
  itemInsertBatch: number;
  /** Batches stored and published at once. */
  batchConcurrency: number;
  /** Group commit of free single checks: entries per round trip, round trips in flight. */
  singleWriteBatchMax: number;
  singleWriteInFlight: number;
}

function isDuplicateKey(err: unknown): boolean {
  return err instanceof MongoServerError && err.code === 11000;
}

/** Per entry of an unordered insertMany of n documents: undefined when stored, else its Error. */
async function settleEach(n: number, write: Promise<unknown>): Promise<Array<Error | undefined>> {
  const out: Array<Error | undefined> = new Array<Error | undefined>(n).fill(undefined);
  try {
    await write;
  } catch (err) {
    if (!(err instanceof MongoBulkWriteError)) throw err;
    const list = Array.isArray(err.writeErrors) ? err.writeErrors : [err.writeErrors];
    for (const we of list) out[we.index] = new Error(we.errmsg ?? 'write refused');
  }
  return out;
}

export class JobStore {
  private readonly o: JobStoreOptions;
  /** Free single checks: their job and item documents, many requests per round trip. */
  private readonly singleInserts: Coalescer<{ job: JobDoc; item: JobItemDoc }, undefined>;

  constructor(opts: JobStoreOptions) {
    this.o = opts;
    const group = { maxBatch: opts.singleWriteBatchMax, maxInFlight: opts.singleWriteInFlight };
    this.singleInserts = new Coalescer({
      ...group,
      flush: async (batch) => {
        const [jobs, items] = await Promise.all([
          settleEach(batch.length, this.jobs.insertMany(batch.map((b) => b.job), { ordered: false })),
          settleEach(batch.length, this.items.insertMany(batch.map((b) => b.item), { ordered: false })),
        ]);
        // A job whose item was refused must not stay behind running forever: take it back, so
        // the caller's failure means nothing was stored (its slot is released).
        const orphans = batch.filter((_, i) => !jobs[i] && items[i]).map((b) => b.job._id);
        if (orphans.length > 0) await this.jobs.deleteMany({ _id: { $in: orphans } });
        return batch.map((_, i) => jobs[i] ?? items[i]);
      },
    });
  }

  private get jobs() {
    return this.o.db.collection<JobDoc>(COLLECTIONS.jobs.name);
  }

  private get items() {
    return this.o.db.collection<JobItemDoc>(COLLECTIONS.jobItems.name);
  }

  /** A free single check's job and item, stored together with other requests' (group commit). */
  insertSingle(job: JobDoc, it: IntakeItem): Promise<undefined> {
    return this.singleInserts.add({ job, item: this.itemDoc(job, it, 0) });
  }

  /**
   * The job document, with its charge when paid. 'stored', or the job that already holds this
   * Idempotency-Key. An error whose commit may have happened anyway (the connection failed after
   * MongoDB committed) is checked against the job document; when even that cannot be read the
   * error is marked `jobStored: 'unknown'`.
   */
  async insertJob(account: Account, job: JobDoc, charge: boolean): Promise<'stored' | JobDoc> {
    try {
      if (charge) await chargeAndInsert(this.o.db, account, job, job.total);
      else await this.jobs.insertOne(job);
      return 'stored';
    } catch (err) {
      if (err instanceof ApiError) throw err;
      if (isDuplicateKey(err) && job.idem_key) {
        const holder = await this.jobs.findOne({ account_id: job.account_id, idem_key: job.idem_key });
        if (holder && holder._id !== job._id) return holder;
      }
      const found = await this.jobs.findOne({ _id: job._id }, { projection: { _id: 1 } }).then(
        (doc) => (doc ? 'yes' : 'no'),
        () => 'unknown' as const,
      );
      if (found === 'yes') return 'stored';
      if (found === 'unknown') Object.assign(err as object, { jobStored: 'unknown' });
      throw err;
    }
  }

  /** Items of a job that was never stored (best effort: left over, they are inert and expire). */
  async dropItems(jobId: string): Promise<void> {
    await this.items.deleteMany({ job_id: jobId }).catch((err: Error) => this.o.log.debug({ job_id: jobId, err: err.message }, 'could not drop the items of a job never stored'));
  }

  /** Items go in batches, a few at a time (batchConcurrency), before the job document exists. */
  async storeItems(job: JobDoc, items: IntakeItem[]): Promise<void> {
    const batch = this.o.itemInsertBatch;
    let next = 0;
    const worker = async () => {
      while (next < items.length) {
        const start = next;
        next += batch;
        await this.items.insertMany(items.slice(start, start + batch).map((it, i) => this.itemDoc(job, it, start + i)), { ordered: false });
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.o.batchConcurrency, Math.ceil(items.length / batch)) }, worker));
  }

  private itemDoc(job: JobDoc, it: IntakeItem, seq: number): JobItemDoc {
    return {
      _id: itemId(job._id, seq),
      job_id: job._id,
      account_id: job.account_id,
      seq,
      email: it.email,
      ref: it.ref,
      meta: it.meta,
      state: 'queued',
      result: null,
      attempts: 0,
      next_attempt_at: null,
      source_ip: null,
      created_at: job.created_at,
      updated_at: job.created_at,
      expires_at: job.expires_at,
    };
  }
}
