import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Db, ObjectId } from 'mongodb';
import type { ExportDoc, ExportType } from '@dv/contracts';
import { classifyFailure, type Logger } from '@dv/runtime';
import { beginAttempt, claimExport, completeExport, exportsColl, failExport, LeaseLost, releaseExport, renewLease, sweepExports } from './jobs.ts';
import { count, ExportLimitExceeded, otherFilesBytes, storageExceeded } from './quota.ts';
import { PORTFOLIO_DEFAULTS } from '../defaults.ts';
import { countDomains } from './rows.ts';
import { deleteFile, openSink } from './sink.ts';
import { writeCsv, writeDiff } from './write-csv.ts';
import { EXPORT_FORMATS, type WriteContext, type Written } from './write-context.ts';
import { writePdf } from './write-pdf.ts';
import { writeZip } from './write-zip.ts';

// Export workers (docs/portfolio-scanner.md "Exports"), in the worker role: `concurrency` loops
// each claim an export from MongoDB (jobs.ts), write its file into GridFS and complete it. A
// worker that dies leaves its lease to lapse; the next claim takes the job over (a new attempt,
// the old partial file deleted) until maxAttempts, after which the sweeper ends it `failed`.

export interface ExportSettings {
  concurrency: number;
  pollMs: number;
  leaseMs: number;
  maxAttempts: number;
  batchRows: number;
  chunkBytes: number;
  ttlS: number;
  pdfMaxRows: number;
  sweepIntervalMs: number;
}

const WRITERS: Record<ExportType, (w: WriteContext) => Promise<Written>> = { csv: writeCsv, diff: writeDiff, pdf: writePdf, zip: writeZip };


class Stopped extends Error {}

export class ExportWorker {
  readonly id = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  private stopping = false;
  private loops: Promise<void>[] = [];
  private wake: (() => void)[] = [];
  private sweepTimer: NodeJS.Timeout | undefined;

  private readonly db: Db;
  private readonly log: Logger;
  private readonly s: ExportSettings;

  constructor(db: Db, log: Logger, settings: ExportSettings) {
    this.db = db;
    this.log = log;
    this.s = settings;
  }

  start(): void {
    for (let i = 0; i < this.s.concurrency; i++) this.loops.push(this.loop());
    this.sweepTimer = setInterval(() => void this.sweep(), this.s.sweepIntervalMs);
    this.sweepTimer.unref();
  }

  /** Stops claiming; exports in progress are given back to the queue for another replica. */
  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.sweepTimer);
    for (const w of this.wake.splice(0)) w();
    await Promise.all(this.loops);
  }

  async sweep(now = new Date()): Promise<void> {
    try {
      const r = await sweepExports(this.db, { maxAttempts: this.s.maxAttempts, ttlS: this.s.ttlS, batch: 100 }, now);
      if (r.abandoned + r.expired > 0) this.log.info(r, 'export sweep');
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'export sweep failed');
    }
  }

  private async loop(): Promise<void> {
    while (!this.stopping) {
      let job: ExportDoc | null = null;
      try {
        job = await claimExport(this.db, this.id, this.s.leaseMs, this.s.maxAttempts);
      } catch (err) {
        this.log.warn({ err: (err as Error).message }, 'export claim failed');
      }
      if (job) await this.run(job);
      else await new Promise<void>((r) => {
        const t = setTimeout(r, this.s.pollMs);
        this.wake.push(() => {
          clearTimeout(t);
          r();
        });
      });
    }
  }

  /** Writes one export; never throws. */
  async run(job: ExportDoc): Promise<void> {
    const format = EXPORT_FORMATS[job.export_type];
    const name = `portfolio-export-${job.id}.${format.ext}`;
    const started = Date.now();
    let lastRenew = Date.now();
    const sink = openSink(this.db, name, format.contentType, { task_id: job._id, account_id: job.account_id }, this.s.chunkBytes);
    try {
      // A crashed attempt's partial file goes first.
      if (job.file_id) await deleteFile(this.db, job.file_id as ObjectId);
      const source = { accountId: job.account_id, parameters: job.parameters, batchRows: this.s.batchRows };
      const expected = await countDomains(this.db, source);
      const limits = await this.limitsOf(job);
      limits.rows(expected);
      await beginAttempt(this.db, job, this.id, { id: sink.fileId, name, contentType: format.contentType }, expected);
      job.rows_expected = expected;
      const progress = async (read: number) => {
        if (this.stopping) throw new Stopped();
        limits.rows(read);
        limits.bytes(sink.bytes);
        // Renew at a third of the lease: progress shows, and the job stays ours while we write.
        if (Date.now() - lastRenew < this.s.leaseMs / 3) return;
        lastRenew = Date.now();
        await renewLease(this.db, job, this.id, this.s.leaseMs, read);
      };
      const written = await WRITERS[job.export_type]({ db: this.db, job, sink, source, progress, pdfMaxRows: this.s.pdfMaxRows, now: new Date() });
      const fileSize = await sink.finish();
      await completeExport(this.db, job, this.id, { rowCount: written.rowCount, fileSize }, this.s.ttlS);
      this.log.info({ task: job._id, type: job.export_type, rows: written.rowCount, bytes: fileSize, ms: Date.now() - started }, 'export completed');
    } catch (err) {
      await sink.abort();
      await this.settleFailure(job, err as Error, sink.fileId).catch((e: Error) => this.log.warn({ task: job._id, err: e.message }, 'export outcome not recorded; its lease will lapse'));
    }
  }

  /**
   * The plan's limits the job was queued with, as checks that throw ExportLimitExceeded: rows read
   * (csv, zip, diff; pdf cuts its own table) and bytes of this file beside the account's others (the
   * completion checks the bytes again, atomically; this stops a file early).
   */
  private async limitsOf(job: ExportDoc): Promise<{ rows: (read: number) => void; bytes: (written: number) => void }> {
    const maxRows = job.export_type === 'pdf' ? undefined : job.max_rows;
    const others = job.max_storage_bytes === undefined ? 0 : await otherFilesBytes(exportsColl(this.db), job);
    return {
      rows: (read) => {
        if (maxRows !== undefined && read > maxRows) throw new ExportLimitExceeded(`the export matched more than ${count(maxRows)} rows, the most an export holds on the plan it was queued on; narrow it with filters or a folder`);
      },
      bytes: (written) => {
        if (job.max_storage_bytes !== undefined && others + written > job.max_storage_bytes) throw storageExceeded(job, others, written);
      },
    };
  }

  private async settleFailure(job: ExportDoc, err: Error, fileId: ObjectId): Promise<void> {
    if (err instanceof ExportLimitExceeded) {
      // Its file would be kept until expiry, taking the very room the limit protects.
      await deleteFile(this.db, fileId);
      await failExport(this.db, job, this.id, err.message, this.s.ttlS);
      return;
    }
    if (err instanceof LeaseLost) {
      this.log.warn({ task: job._id }, 'export taken over by another worker');
      return;
    }
    if (err instanceof Stopped) {
      await releaseExport(this.db, job, this.id, true);
      return;
    }
    // A backing service down or slow is worth another attempt (@dv/runtime's classifyFailure);
    // anything else (a bug, bad data) is the reason it failed.
    if (classifyFailure(err) !== 'other' && job.attempts < this.s.maxAttempts) {
      this.log.warn({ task: job._id, err: err.message }, 'export interrupted; queued again');
      await releaseExport(this.db, job, this.id, false);
      return;
    }
    this.log.error({ task: job._id, err }, 'export failed');
    await failExport(this.db, job, this.id, `the export could not be written: ${err.message.slice(0, 300)}`, this.s.ttlS);
  }
}

/** The settings from the service's configuration and defaults. */
export function exportSettings(config: { PORTFOLIO_EXPORT_CONCURRENCY: number; PORTFOLIO_EXPORT_TTL_S: number; PORTFOLIO_EXPORT_PDF_MAX_ROWS: number }): ExportSettings {
  const D = PORTFOLIO_DEFAULTS;
  return {
    concurrency: config.PORTFOLIO_EXPORT_CONCURRENCY,
    pollMs: D.exportPollMs,
    leaseMs: D.exportLeaseMs,
    maxAttempts: D.exportMaxAttempts,
    batchRows: D.exportBatchRows,
    chunkBytes: D.exportChunkBytes,
    ttlS: config.PORTFOLIO_EXPORT_TTL_S,
    pdfMaxRows: config.PORTFOLIO_EXPORT_PDF_MAX_ROWS,
    sweepIntervalMs: D.exportSweepIntervalMs,
  };
}
