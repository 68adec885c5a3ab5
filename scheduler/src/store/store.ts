// Storing results (docs/data-model.md "Flow of one item", steps 3-4). Idempotent end to end: an
// item moves to `done` only from `queued`/`waiting_retry`, and the job's counters move in the same
// transaction, by exactly the number of items that moved. Completion is a conditional update from
// `running` in the same transaction as the account's next event sequence number and the event, so
// a job completes once and its event exists exactly once, whatever crashes and redeliveries happen.
import type { ClientSession, Db } from 'mongodb';
import type { NatsConnection } from '@nats-io/transport-node';
import {
  COLLECTIONS,
  RETENTION_DAYS,
  SUBJECTS,
  cacheId,
  latestResultId,
  newId,
  type CacheDoc,
  type CounterDoc,
  type EventDoc,
  type ItemEvidence,
  type JobDoc,
  type JobItemDoc,
  type LatestResultDoc,
  type VerifyDoneMessage,
} from '@dv/contracts';
import { loadDecisionCounts } from '@dv/notify';
import type { Logger } from '@dv/runtime';
import type { VerificationResult } from '@dv/verdict';
import type { SchedulerMetrics } from '../metrics.ts';

const DAY_MS = 86_400_000;
/** States an item may move to `done` from; anything else (done, canceled) is a replay or too late. */
const OPEN_STATES: JobItemDoc['state'][] = ['queued', 'waiting_retry'];

export interface FinishedItem {
  itemId: string;
  jobId: string;
  accountId: string;
  mode: 'live' | 'sandbox';
  result: VerificationResult;
  /** Probe attempts made (stored on the item). */
  attempts: number;
  /** What the deciding probe session saw (stored on the item for people to read); absent without one. */
  evidence?: ItemEvidence;
}

export interface StoreDeps {
  db: Db;
  nc: NatsConnection;
  log: Logger;
  metrics?: SchedulerMetrics;
  cacheRetentionDays: number;
}

export class ResultStore {
  private readonly d: StoreDeps;
  /** The last counter transaction queued per job (see `serially`). */
  private readonly jobTails = new Map<string, Promise<void>>();
  constructor(deps: StoreDeps) {
    this.d = deps;
  }

  private get jobs() {
    return this.d.db.collection<JobDoc>(COLLECTIONS.jobs.name);
  }
  private get items() {
    return this.d.db.collection<JobItemDoc>(COLLECTIONS.jobItems.name);
  }

  /** Stores finished items (any jobs); returns how many actually moved to done (0 for replays). */
  async store(finished: readonly FinishedItem[], opts: { complete?: boolean } = {}): Promise<number> {
    if (finished.length === 0) return 0;
    const byJob = new Map<string, FinishedItem[]>();
    for (const f of finished) {
      const group = byJob.get(f.jobId);
      if (group) group.push(f);
      else byJob.set(f.jobId, [f]);
    }
    const moved = await Promise.all(
      [...byJob].map(async ([jobId, group]) => {
        const r = await this.serially(jobId, () => this.storeJobGroup(jobId, group));
        // Only the transaction that brought `done` to `total` can complete the job (a replay that
        // moved nothing re-checks: the crash it replays may have come before the completion).
        if (opts.complete !== false && (r.moved === 0 || r.done >= r.total)) await this.checkCompletion(jobId);
        return r.moved;
      }),
    );
    return moved.reduce((a, b) => a + b, 0);
  }

  /**
   * Runs one job's counter transactions one after another: two at once would only collide on the
   * job document (a write conflict aborts one, which then retries from the start).
   */
  private serially<T>(jobId: string, fn: () => Promise<T>): Promise<T> {
    const run = (this.jobTails.get(jobId) ?? Promise.resolve()).then(fn);
    const tail = run.then(
      () => undefined,
      () => undefined,
    );
    this.jobTails.set(jobId, tail);
    void tail.then(() => {
      if (this.jobTails.get(jobId) === tail) this.jobTails.delete(jobId);
    });
    return run;
  }

  /**
   * One transaction: the items still open move to `done` and the job's counters move by exactly
   * that many (per status, the bulk write's matched count: a replayed or duplicate item matches
   * nothing). No read first: MongoDB is the pipeline's bottleneck, and a read per item would cost
   * it a quarter more work.
   */
  private async storeJobGroup(jobId: string, group: FinishedItem[]): Promise<{ moved: number; done: number; total: number }> {
    const now = new Date();
    let out = { moved: 0, done: 0, total: Number.POSITIVE_INFINITY };
    const counted = new Map<string, number>();
    const byStatus = new Map<string, FinishedItem[]>();
    for (const f of group) {
      const list = byStatus.get(f.result.status);
      if (list) list.push(f);
      else byStatus.set(f.result.status, [f]);
    }
    await this.withTransaction(async (session) => {
      out = { moved: 0, done: 0, total: Number.POSITIVE_INFINITY };
      counted.clear();
      const inc: Record<string, number> = {};
      for (const [status, list] of byStatus) {
        const res = await this.items.bulkWrite(
          list.map((f) => ({
            updateOne: {
              filter: { _id: f.itemId, state: { $in: OPEN_STATES } },
              update: { $set: { state: 'done' as const, result: f.result, attempts: f.attempts, next_attempt_at: null, updated_at: now, ...(f.evidence ? { evidence: f.evidence } : {}) } },
            },
          })),
          { session, ordered: false },
        );
        if (res.matchedCount > 0) {
          inc[`counts.${status}`] = res.matchedCount;
          out.moved += res.matchedCount;
          counted.set(status, res.matchedCount);
        }
      }
      if (out.moved === 0) return;
      const after = await this.jobs.findOneAndUpdate({ _id: jobId }, { $inc: { done: out.moved, ...inc }, $set: { updated_at: now } }, { session, returnDocument: 'after', projection: { done: 1, total: 1 } });
      out.done = after?.done ?? 0;
      out.total = after?.total ?? 0;
      await this.sideTables(group, session);
    });
    if (this.d.metrics) for (const f of group) if (counted.has(f.result.status)) this.d.metrics.verdicts.inc({ status: f.result.status, sub_status: f.result.sub_status });
    return out;
  }

  /**
   * Latest result per (account, address) and the shared cache: replaced by `_id` (a replay is
   * harmless). By `_id` alone, not through a secondary index: MongoDB then finds the document
   * without planning a query, and these two upserts were most of its work per item. Inside the
   * job's transaction, after the items, not beside it: one commit for all three writes costs
   * MongoDB a quarter less, and concurrent bulk writes cost it twice the CPU of the same writes in
   * a row (docs/scheduler.md, "Benchmark"). Being atomic with the items, a replay that moved
   * nothing has nothing to add here.
   */
  private async sideTables(group: readonly FinishedItem[], session: ClientSession): Promise<void> {
    const now = new Date();
    const expires = new Date(now.getTime() + RETENTION_DAYS * DAY_MS);
    await this.d.db.collection<LatestResultDoc>(COLLECTIONS.latestResults.name).bulkWrite(
      group.map((f) => ({
        replaceOne: {
          filter: { _id: latestResultId(f.accountId, f.mode, f.result.email) },
          replacement: { account_id: f.accountId, mode: f.mode, email: f.result.email, result: f.result, job_id: f.jobId, checked_at: new Date(f.result.checked_at), expires_at: expires },
          upsert: true,
        },
      })),
      { ordered: false, session },
    );
    // Only fresh live verdicts are shared: never sandbox answers, never results served from the
    // cache (that would extend their age), never `unknown` (nothing worth serving), never ref.
    const shareable = group.filter((f) => f.mode === 'live' && !f.result.cached && f.result.status !== 'unknown');
    if (shareable.length === 0) return;
    const cacheExpires = new Date(now.getTime() + this.d.cacheRetentionDays * DAY_MS);
    await this.d.db.collection<CacheDoc>(COLLECTIONS.verificationCache.name).bulkWrite(
      shareable.map((f) => ({
        replaceOne: {
          filter: { _id: cacheId(f.result.email) },
          replacement: { email: cacheId(f.result.email), result: { ...f.result, ref: null }, checked_at: new Date(f.result.checked_at), expires_at: cacheExpires },
          upsert: true,
        },
      })),
      { ordered: false, session },
    );
  }

  /**
   * Completes the job when every item is done (or canceled: the gateway's DELETE sets the job
   * `canceled` itself, so a canceled job is never completed here). Safe to call any number of
   * times from any replica: the first caller's transaction wins, the rest see `completed`.
   */
  async checkCompletion(jobId: string): Promise<void> {
    const job = await this.jobs.findOne({ _id: jobId });
    if (!job) return;
    // The deadline sweep is ending this job: it completes the job itself once the refund is recorded.
    if (job.deadline_settled === false) return;
    if (job.status === 'running' && job.done >= job.total) {
      const now = new Date();
      await this.withTransaction(async (session) => {
        const res = await this.jobs.updateOne({ _id: jobId, status: 'running', done: { $gte: job.total }, deadline_settled: { $ne: false } }, { $set: { status: 'completed', completed_at: now, updated_at: now } }, { session });
        if (res.modifiedCount !== 1) return;
        const counter = await this.d.db
          .collection<CounterDoc>(COLLECTIONS.counters.name)
          .findOneAndUpdate({ _id: `events:${job.account_id}` }, { $inc: { seq: 1 } }, { upsert: true, returnDocument: 'after', session });
        const data = await this.eventData(job, now, session);
        const event: EventDoc = {
          _id: newId('event'),
          account_id: job.account_id,
          seq: counter!.seq,
          type: 'job.completed',
          job_id: jobId,
          data,
          created_at: now,
          expires_at: new Date(now.getTime() + RETENTION_DAYS * DAY_MS),
        };
        await this.d.db.collection<EventDoc>(COLLECTIONS.events.name).insertOne(event, { session });
      });
      this.publishDone(jobId, job.kind, 'completed');
      return;
    }
    if (job.status === 'completed') this.publishDone(jobId, job.kind, 'completed');
  }

  /** The event's data, in the shape @dv/notify sends as the webhook body (docs/notify.md §2). */
  private async eventData(job: JobDoc, completedAt: Date, session: ClientSession): Promise<Record<string, unknown>> {
    const after = (await this.jobs.findOne({ _id: job._id }, { session })) ?? job;
    const base = {
      job_id: job._id,
      kind: job.kind,
      mode: job.mode,
      status: 'completed',
      label: job.label,
      total: after.total,
      done: after.done,
      counts: after.counts,
      // Counted once here, so the feed and the webhook carry the same numbers without recounting.
      decisions: await loadDecisionCounts(this.d.db, job._id, session),
      credits_charged: after.credits_charged,
      credits_refunded: after.credits_refunded,
      completed_at: completedAt.toISOString(),
    };
    if (job.kind === 'single') {
      const item = await this.items.findOne({ job_id: job._id }, { session, sort: { seq: 1 } });
      return { ...base, result: item?.result ?? null };
    }
    return { ...base, results_url: `/v1/jobs/${job._id}/results` };
  }

  publishDone(jobId: string, kind: JobDoc['kind'], status: VerifyDoneMessage['status']): void {
    const msg: VerifyDoneMessage = { job_id: jobId, kind: kind === 'single' ? 'single' : 'job', status };
    try {
      this.d.nc.publish(SUBJECTS.verifyDone(jobId), JSON.stringify(msg));
    } catch (err) {
      // Core NATS is best effort: a long-poll that misses it still times out and re-reads MongoDB.
      this.d.log.warn({ err, jobId }, 'could not publish verify.done');
    }
  }

  private async withTransaction(fn: (session: ClientSession) => Promise<void>): Promise<void> {
    const session = this.d.db.client.startSession();
    try {
      await session.withTransaction(fn);
    } finally {
      await session.endSession();
    }
  }
}
