// Publishing a stored job's item messages to JetStream and moving its publish mark
// (JobDoc.unpublished) as they are acked: the mark tells the scheduler's sweep from where to
// republish for a gateway that died part-way. Apart from jobs.ts because the mark's rules (an
// unbroken run from seq 0, monotonic, never waited for) are their own and tested alone.
import { COLLECTIONS, itemId, verifyItemMessageFor, verifySubjectFor, type JobDoc } from '@dv/contracts';
import type { JetStreamPublisher } from '@dv/runtime';
import { Coalescer } from './coalescer.ts';
import type { JobStoreOptions } from './job-store.ts';
import { publishWithRetry, type PublishRetryOptions } from './publish-retry.ts';

/** What publishing a job's messages needs of JobServiceOptions (batch sizes shared with storing). */
export interface JobPublishOptions extends JobStoreOptions {
  /** Item messages: acked publishes matched on one inbox (cheaper than js.publish per item). */
  publisher: Pick<JetStreamPublisher, 'publish'>;
  /** Item messages are published again with backoff when an ack does not come (publish-retry.ts). */
  publishRetry: PublishRetryOptions;
}

/**
 * How far from the start a job's items are all published, given the batches (by first seq) acked
 * so far: batches finish out of order when several run at once, and the mark may only cover an
 * unbroken run from seq 0.
 */
export function publishedPrefix(finishedStarts: ReadonlySet<number>, from: number, batch: number, total: number): number {
  let prefix = from;
  while (prefix < total && finishedStarts.has(prefix)) prefix = Math.min(total, prefix + batch);
  return prefix;
}

export class JobPublisher {
  private readonly o: JobPublishOptions;
  /** Free single checks' published marks (JobDoc.unpublished cleared), many jobs per round trip. */
  private readonly publishedMarks: Coalescer<string, undefined>;

  constructor(opts: JobPublishOptions) {
    this.o = opts;
    const group = { maxBatch: opts.singleWriteBatchMax, maxInFlight: opts.singleWriteInFlight };
    this.publishedMarks = new Coalescer({
      ...group,
      flush: async (ids) => {
        await this.jobs.updateMany({ _id: { $in: ids } }, { $set: { unpublished: null } });
        return ids.map(() => undefined);
      },
    });
  }

  private get jobs() {
    return this.o.db.collection<JobDoc>(COLLECTIONS.jobs.name);
  }

  /** A free single check's job is published: its mark is cleared with other jobs', and not waited for. */
  markPublishedSoon(jobId: string): void {
    this.markLater(this.publishedMarks.add(jobId));
  }

  /**
   * Messages go in batches, a few at a time. As batches finish, the job's mark moves past every
   * batch finished so far from the start (JobDoc.unpublished), one update per batch, in order.
   */
  async publishItems(job: JobDoc, items: ReadonlyArray<{ seq: number; email: string }>): Promise<void> {
    const batch = this.o.itemInsertBatch;
    const starts: number[] = [];
    for (let s = 0; s < items.length; s += batch) starts.push(s);
    const finished = new Set<number>();
    let prefix = 0;
    let marks: Promise<void> = Promise.resolve();
    let next = 0;
    const worker = async () => {
      while (next < starts.length) {
        const start = starts[next++]!;
        await this.publish(job, items.slice(start, start + batch));
        finished.add(start);
        const before = prefix;
        prefix = publishedPrefix(finished, prefix, batch, items.length);
        if (prefix > before) {
          const through = prefix;
          // A failed mark must not stop later ones (each is logged by markLater).
          marks = marks.catch(() => undefined).then(() => this.markPublished(job, through));
          this.markLater(marks);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.o.batchConcurrency, starts.length) }, worker));
  }

  /**
   * A `published` mark only spares the scheduler's sweep a needless republish (the message id makes
   * that harmless anyway), so no answer waits for it; a failed mark is left to the sweep.
   */
  private markLater(mark: Promise<unknown>): void {
    void mark.catch((err: Error) => this.o.log.debug({ err: err.message }, 'published mark failed; the sweep will republish'));
  }

  /**
   * Every message below `through` was acked: the scheduler's sweep republishes only from there, and
   * only for a job whose mark has not moved for a minute (its gateway died part-way). Monotonic
   * ($max), and never brought back once cleared.
   */
  async markPublished(job: JobDoc, through: number): Promise<void> {
    if (through >= job.total) {
      await this.jobs.updateOne({ _id: job._id }, { $set: { unpublished: null } });
      return;
    }
    await this.jobs.updateOne({ _id: job._id, unpublished: { $type: 'object' } }, { $max: { 'unpublished.from_seq': through }, $set: { 'unpublished.at': new Date() } });
  }

  async publish(job: JobDoc, items: ReadonlyArray<{ seq: number; email: string }>): Promise<void> {
    const subject = verifySubjectFor(job);
    const enqueuedAt = job.created_at.toISOString();
    await Promise.all(items.map((it) => publishWithRetry(this.o.publisher, subject, JSON.stringify(verifyItemMessageFor(job, it, enqueuedAt)), itemId(job._id, it.seq), this.o.publishRetry)));
  }
}
