// Periodic sweeps, safe to run on every replica at once:
// - retries: parked items that are due go back onto JetStream (message id `<item>:a<attempts>:<due
//   time>`, so two replicas sweeping the same park publish one message and every park its own),
//   then turn `queued`;
// - unpublished: items of jobs whose gateway died before publishing them all go onto JetStream;
//   such a job short of stored items first has its total brought down to them and the gap
//   refunded once (reconcile.ts, ledger id refund:<job>:unstored);
// - deadlines: running jobs past `deadline_at` end their leftover items unknown/deadline, refund
//   them once (ledger id refund:<job>:deadline) and complete. `deadline_settled: false` marks a
//   sweep in progress, so a replica dying part-way is finished by the next sweep, and no other
//   path completes the job before its refund is recorded. Leftovers end in batches of
//   STORE_BATCH_MAX (the finisher's cap), one transaction each, not one over up to 25,000 items;
//   the refund is counted from the stored items after the last batch, so a sweep cut between
//   batches refunds nothing until the next one has ended the rest, and then once.
import type { Db } from 'mongodb';
import type { NatsConnection } from '@nats-io/transport-node';
import { addCredits } from '@dv/accounts';
import { COLLECTIONS, LEDGER_IDS, verifyItemMessageFor, verifySubjectFor, type JobDoc, type JobItemDoc } from '@dv/contracts';
import { JetStreamPublisher, type Logger } from '@dv/runtime';
import { checkSyntax, verdict } from '@dv/verdict';
import type { SchedulerConfig } from '../config.ts';
import type { SchedulerMetrics } from '../metrics.ts';
import { reconcileStoredItems } from './reconcile.ts';
import type { FinishedItem, ResultStore } from '../store/store.ts';

/**
 * The message id of a parked item's return to the queue: the same for every replica sweeping the
 * same park (JetStream keeps one), new for each park. An item parked again without a new attempt
 * (a provider pause, no probe capacity, a node lost) keeps its attempt count; with the count alone
 * as id, its second return inside JetStream's duplicate window (2 min) was dropped as a duplicate
 * and the item stayed `queued` with no message: the cluster's NATS-restart scenario (docs/cluster.md) left 345
 * items so.
 */
export function retryMsgId(item: Pick<JobItemDoc, '_id' | 'attempts' | 'next_attempt_at'>): string {
  return `${item._id}:a${item.attempts}:${item.next_attempt_at?.getTime() ?? 0}`;
}

export interface SweeperDeps {
  nc: NatsConnection;
  db: Db;
  config: SchedulerConfig;
  log: Logger;
  store: ResultStore;
  metrics: SchedulerMetrics;
}

export class Sweeper {
  private readonly d: SweeperDeps;
  private timer: NodeJS.Timeout | null = null;
  private busy = false;
  private readonly publisher: JetStreamPublisher;

  constructor(deps: SweeperDeps) {
    this.d = deps;
    this.publisher = new JetStreamPublisher(deps.nc);
  }

  start(): void {
    this.timer = setInterval(() => void this.tick(), this.d.config.SWEEP_INTERVAL_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  async tick(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      await this.retries();
      await this.unpublished();
      await this.deadlines();
    } catch (err) {
      this.d.log.warn({ err: (err as Error).message }, 'sweep failed; next tick retries');
    } finally {
      this.busy = false;
    }
  }

  private get items() {
    return this.d.db.collection<JobItemDoc>(COLLECTIONS.jobItems.name);
  }
  private get jobs() {
    return this.d.db.collection<JobDoc>(COLLECTIONS.jobs.name);
  }

  async retries(): Promise<number> {
    const due = await this.items.find({ state: 'waiting_retry', next_attempt_at: { $lte: new Date() } }).sort({ next_attempt_at: 1 }).limit(this.d.config.SWEEP_BATCH).toArray();
    if (due.length === 0) return 0;
    const jobs = await this.jobsOf(due);
    const live = due.filter((item) => jobs.get(item.job_id)?.status === 'running');
    await this.republish(live.map((item) => ({ job: jobs.get(item.job_id)!, item, msgID: retryMsgId(item) })));
    // Published first, then marked, all in one bulk write (one command instead of one per item,
    // beside the store's writes): a crash in between re-publishes the same message ids, which
    // JetStream drops as duplicates.
    if (live.length > 0) {
      const now = new Date();
      await this.items.bulkWrite(
        live.map((item) => ({ updateOne: { filter: { _id: item._id, state: 'waiting_retry' as const, next_attempt_at: item.next_attempt_at }, update: { $set: { state: 'queued' as const, updated_at: now } } } })),
        { ordered: false },
      );
    }
    return due.length;
  }

  /**
   * Items a gateway stored but did not live to publish: jobs whose publish mark (JobDoc.unpublished)
   * has not moved for UNPUBLISHED_AFTER_MS. Their queued items from the mark on go out with the
   * item id as message id, the one the gateway used, and the age threshold sits inside JetStream's
   * duplicate window, so a message that did go out (the gateway died before moving the mark) is
   * not queued twice. At most SWEEP_BATCH items per job and tick; the mark moves past them.
   */
  async unpublished(): Promise<number> {
    const cutoff = new Date(Date.now() - this.d.config.UNPUBLISHED_AFTER_MS);
    const stalled = await this.jobs.find({ 'unpublished.at': { $lte: cutoff } }).limit(50).toArray();
    let republished = 0;
    for (const job of stalled) {
      if (job.status === 'running') await this.reconcile(job);
      const from = job.unpublished?.from_seq ?? 0;
      const items = job.status === 'running' ? await this.items.find({ job_id: job._id, seq: { $gte: from }, state: 'queued' }).sort({ seq: 1 }).limit(this.d.config.SWEEP_BATCH).toArray() : [];
      await this.republish(items.map((item) => ({ job, item, msgID: item._id })));
      republished += items.length;
      const more = items.length === this.d.config.SWEEP_BATCH;
      await this.jobs.updateOne({ _id: job._id, unpublished: { $type: 'object' } }, more ? { $max: { 'unpublished.from_seq': items.at(-1)!.seq + 1 } } : { $set: { unpublished: null } });
    }
    if (republished > 0) this.d.log.warn({ items: republished, jobs: stalled.length }, 'republished items a gateway had stored but not published');
    return republished;
  }

  /** A stalled job short of stored items: total brought down to them, the gap refunded once, and it may complete. */
  private async reconcile(job: JobDoc): Promise<void> {
    const r = await reconcileStoredItems(this.d.db, job);
    if (r.missing === 0) return;
    if (r.refunded > 0) this.d.metrics.refunds.inc(r.refunded);
    this.d.log.warn({ job: job._id, missing: r.missing, refunded: r.refunded }, 'job had items charged but never stored; total reconciled');
    await this.d.store.checkCompletion(job._id);
  }

  /** The jobs of these items, one query. */
  private async jobsOf(items: readonly JobItemDoc[]): Promise<Map<string, JobDoc>> {
    const ids = [...new Set(items.map((item) => item.job_id))];
    const docs = await this.jobs.find({ _id: { $in: ids } }).toArray();
    return new Map(docs.map((job) => [job._id, job]));
  }

  /** Publishes with their acks pipelined; throws (the tick retries) unless every one was acked. */
  private async republish(msgs: ReadonlyArray<{ job: JobDoc; item: JobItemDoc; msgID: string }>): Promise<void> {
    const enqueuedAt = new Date().toISOString();
    await Promise.all(msgs.map(({ job, item, msgID }) => this.publisher.publish(verifySubjectFor(job), JSON.stringify(verifyItemMessageFor(job, item, enqueuedAt)), { msgID })));
  }

  async deadlines(): Promise<void> {
    const now = new Date();
    const expired = await this.jobs.find({ status: 'running', deadline_at: { $lte: now } }).limit(50).toArray();
    const unsettled = await this.jobs.find({ deadline_settled: false }).limit(50).toArray();
    const seen = new Set<string>();
    for (const job of [...expired, ...unsettled]) {
      if (seen.has(job._id)) continue;
      seen.add(job._id);
      await this.endAtDeadline(job);
    }
  }

  private async endAtDeadline(job: JobDoc): Promise<void> {
    if (job.deadline_settled !== false) {
      const res = await this.jobs.updateOne({ _id: job._id, status: 'running', deadline_settled: { $ne: false } }, { $set: { deadline_settled: false } });
      if (res.modifiedCount === 0 && job.status !== 'running') return;
    }
    let leftovers = 0;
    for (;;) {
      const ended = await this.endDeadlineBatch(job);
      if (ended === 0) break;
      leftovers += ended;
    }
    if (job.mode === 'live') {
      const n = await this.items.countDocuments({ job_id: job._id, 'result.sub_status': 'deadline' });
      if (n > 0) {
        await addCredits(this.d.db, job.account_id, n, LEDGER_IDS.refundDeadline(job._id), `deadline: ${n} unfinished items`);
        const moved = await this.jobs.updateOne({ _id: job._id, deadline_refunded: { $ne: true } }, { $inc: { credits_refunded: n }, $set: { deadline_refunded: true, updated_at: new Date() } });
        if (moved.modifiedCount === 1) this.d.metrics.refunds.inc(n);
      }
    }
    await this.jobs.updateOne({ _id: job._id }, { $set: { deadline_settled: true } });
    await this.d.store.checkCompletion(job._id);
    this.d.log.info({ job: job._id, leftovers }, 'job deadline reached');
  }

  /**
   * Ends at most STORE_BATCH_MAX of the job's open items unknown/deadline in one store transaction
   * (not completing the job: its deadline is not settled yet). Returns how many it found; 0 when
   * none are left. Each call makes progress: an item found open either moves to done here or was
   * moved by another replica meanwhile, and the next call no longer finds it.
   */
  async endDeadlineBatch(job: JobDoc): Promise<number> {
    const now = new Date();
    const batch = await this.items.find({ job_id: job._id, state: { $in: ['queued', 'waiting_retry'] } }).sort({ seq: 1 }).limit(this.d.config.STORE_BATCH_MAX).toArray();
    if (batch.length === 0) return 0;
    const finished: FinishedItem[] = batch.map((item) => ({
      itemId: item._id,
      jobId: job._id,
      accountId: job.account_id,
      mode: job.mode,
      attempts: item.attempts,
      result: verdict({ email: item.email, syntax: checkSyntax(item.email), now, ref: item.ref, deadlineReached: true }),
    }));
    await this.d.store.store(finished, { complete: false });
    return batch.length;
  }
}
