import { createHash } from 'node:crypto';
import { COLLECTIONS, newId, RETENTION_DAYS, type JobDoc, type JobItemDoc, type JobKind, type JobStatus } from '@dv/contracts';
import { ApiError } from '@dv/runtime';
import type { Caller } from './auth.ts';
import type { IntakeItem } from './intake.ts';
import type { Limits } from './limits.ts';
import { checkCredits, refundCanceled } from './credits.ts';
import { JobPublisher, type JobPublishOptions } from './job-publish.ts';
import { JobStore } from './job-store.ts';

// Job creation, cancel and reads (docs/data-model.md "Flow of one item" and "Credits"). A job's
// items are stored first; then the charge, its ledger entry and the job document are one MongoDB
// transaction, so a job exists if and only if it was paid for and every item it was paid for is
// stored; JetStream messages follow (item id = message id, so a republish inside the stream's
// duplicate window is dropped). A job created with an Idempotency-Key carries its hash
// (JobDoc.idem_key, unique per account): a retry of a request that failed after the charge finds
// that job and finishes publishing it instead of charging a second one.
//
// This file creates (and resumes) jobs, reads and cancels them; writing a job's documents is
// job-store.ts and publishing its messages job-publish.ts.

export { publishedPrefix } from './job-publish.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

/** What the caller chose for a job (POST /v1/jobs as JSON or as an upload, MCP, single checks). */
export interface JobSettings {
  label: string | null;
  maxAgeDays: number | null;
  forceFresh: boolean;
  notifyEmail: boolean;
  webhookUrl: string | null;
  maxWallSeconds: number | null;
}

export interface NewJob extends JobSettings {
  /**
   * Set by callers that must listen for the job's end before it exists. A retry that finds its
   * earlier job (idempotencyKey) gets that job back, with another id: callers compare.
   */
  jobId?: string;
  /** The request's Idempotency-Key (route input): one job, one charge per (account, key). */
  idempotencyKey?: string;
  kind: JobKind;
  items: IntakeItem[];
  /** The caller already holds this job's slot under `jobId` (MCP verify_list_from_url takes it before downloading the list). */
  slotHeld?: boolean;
}

/** Storing and publishing options (job-store.ts, job-publish.ts), and what creating a job adds. */
export interface JobServiceOptions extends JobPublishOptions {
  limits: Limits;
  /** An Idempotency-Key finds its earlier job this long (the idempotency window); after that it starts a new one. */
  idempotencyWindowSeconds: number;
  /** List jobs whose messages go out after their answer, at once (defaults.ts backgroundPublishMaxJobs); 0: always before it. */
  backgroundPublishMaxJobs: number;
}

/**
 * What a job stores of an Idempotency-Key: its hash, never the key itself. The key mode is part of
 * it, as in the Redis records (services/idempotency.ts): a live request never finds (and is never
 * answered with) the free sandbox job that used the same key, nor the reverse.
 */
export function idempotencyKeyHash(mode: JobDoc['mode'], key: string): string {
  return createHash('sha256').update(`${mode}\n${key}`).digest('base64url');
}

/** One create call on its way: what it holds decides what a failure gives back. */
interface Creation {
  account: Caller['account'];
  spec: NewJob;
  job: JobDoc;
  live: boolean;
  releaseDaily: () => Promise<void>;
  // 'no': nothing of the job exists, its slot and cap go back; 'unknown': MongoDB may have
  // committed it without saying so (they stay, the retry or the Redis rebuild sorts them out).
  stored: 'no' | 'yes' | 'unknown';
  /** performance.now() at the start and after each step, for the log line of a large job. */
  phases: { t0: number; stored: number; charged: number; published: boolean };
}

function newJobDoc(caller: Caller, spec: NewJob, jobId: string, idemKey: string | undefined, now: Date): JobDoc {
  const n = spec.items.length;
  const live = caller.mode === 'live';
  return {
    _id: jobId,
    account_id: caller.account._id,
    key_id: caller.key._id,
    mode: caller.mode,
    kind: spec.kind,
    status: 'running',
    label: spec.label,
    total: n,
    done: 0,
    counts: { deliverable: 0, undeliverable: 0, risky: 0, unknown: 0 },
    credits_charged: live ? n : 0,
    credits_refunded: 0,
    max_age_days: spec.maxAgeDays,
    force_fresh: spec.forceFresh,
    notify_email: spec.notifyEmail,
    max_wall_seconds: spec.maxWallSeconds,
    deadline_at: spec.maxWallSeconds ? new Date(now.getTime() + spec.maxWallSeconds * 1000) : null,
    webhook: spec.webhookUrl ? { url: spec.webhookUrl, attempts: 0, last_status: null, last_error: null, next_attempt_at: null, delivered_at: null } : null,
    created_at: now,
    updated_at: now,
    completed_at: null,
    // Nothing to publish, nothing to watch: a job without items starts with no mark.
    unpublished: n > 0 ? { from_seq: 0, at: now } : null,
    expires_at: new Date(now.getTime() + RETENTION_DAYS * DAY_MS),
    ...(idemKey ? { idem_key: idemKey } : {}),
  };
}

export class JobService {
  private readonly o: JobServiceOptions;
  private readonly store: JobStore;
  private readonly publisher: JobPublisher;
  /** List jobs answered and still publishing (publishAfterAnswer). */
  private readonly publishing = new Set<Promise<void>>();
  private draining = false;

  constructor(opts: JobServiceOptions) {
    this.o = opts;
    this.store = new JobStore(opts);
    this.publisher = new JobPublisher(opts);
  }

  private get jobs() {
    return this.o.db.collection<JobDoc>(COLLECTIONS.jobs.name);
  }

  private get items() {
    return this.o.db.collection<JobItemDoc>(COLLECTIONS.jobItems.name);
  }

  /** Running job ids of one kind (the truth behind the Redis slot sets). */
  async runningJobIds(accountId: string, kind: JobKind): Promise<string[]> {
    const docs = await this.jobs.find({ account_id: accountId, status: 'running', kind }, { projection: { _id: 1 } }).limit(10_000).toArray();
    return docs.map((d) => d._id);
  }

  async create(caller: Caller, spec: NewJob): Promise<JobDoc> {
    const { account } = caller;
    const n = spec.items.length;
    if (n > account.limits.emailsPerJob) throw jobTooLarge(n, account.limits.emailsPerJob);
    const idemKey = spec.idempotencyKey === undefined ? undefined : idempotencyKeyHash(caller.mode, spec.idempotencyKey);
    if (idemKey) {
      // A retry of a request that failed after its job was stored: that job, never a second charge.
      const earlier = await this.keyedJob(account._id, idemKey);
      if (earlier) return this.resume(earlier);
    }
    const jobId = spec.jobId ?? newId('job');
    const now = new Date();
    const releaseDaily = await this.takeCapAndSlot(caller, spec, jobId);
    const job = newJobDoc(caller, spec, jobId, idemKey, now);
    const t0 = performance.now();
    const c: Creation = { account, spec, job, live: caller.mode === 'live', releaseDaily, stored: 'no', phases: { t0, stored: t0, charged: t0, published: true } };
    // Resumed outside storeAndPublish's failure handling: ours was already given back, and a
    // failing resume must not give it back twice.
    const standing = await this.storeAndPublish(c);
    if (standing) return this.resume(standing);
    if (n >= 1000) this.logPhases(job, c.phases);
    return job;
  }

  /** Returns what gives the daily cap back. Sandbox is free and uncounted (spec, Authentication item 5). */
  private async takeCapAndSlot(caller: Caller, spec: NewJob, jobId: string): Promise<() => Promise<void>> {
    const { account } = caller;
    const releaseDaily = caller.mode === 'live' ? await this.o.limits.takeDaily(account._id, account.limits, spec.items.length) : async () => undefined;
    try {
      if (!spec.slotHeld) await this.o.limits.acquireSlot(account._id, account.limits, spec.kind, jobId);
    } catch (err) {
      await releaseDaily();
      throw err;
    }
    return releaseDaily;
  }

  /** Stores, charges and publishes the job; the job another request with the same key stored first, if one did. */
  private async storeAndPublish(c: Creation): Promise<JobDoc | undefined> {
    const { spec, job } = c;
    try {
      if (spec.kind === 'single' && !c.live && spec.items.length === 1 && job.idem_key === undefined) {
        await this.storeFreeSingle(c);
        return undefined;
      }
      return await this.storePaid(c);
    } catch (err) {
      if (c.stored === 'no' && (err as { jobStored?: unknown }).jobStored === 'unknown') c.stored = 'unknown';
      // A job that exists keeps its slot and cap until it ends; one that does not gives them back.
      if (c.stored === 'no') await this.giveBack(c);
      throw err;
    }
  }

  /**
   * A free single check (sandbox), the hot path: job and item go in together, grouped with other
   * requests' (group commit); the message still follows only once both are stored.
   */
  private async storeFreeSingle(c: Creation): Promise<void> {
    const { spec, job } = c;
    await this.store.insertSingle(job, spec.items[0]!);
    c.stored = 'yes';
    await this.publisher.publish(job, spec.items.map((it, seq) => ({ seq, email: it.email })));
    this.publisher.markPublishedSoon(job._id);
  }

  /**
   * Items before the charge: a paid job always holds every item it was paid for. A list the
   * account cannot pay for is refused before its items are written (the charge re-checks).
   */
  private async storePaid(c: Creation): Promise<JobDoc | undefined> {
    const { account, spec, job, phases } = c;
    const n = spec.items.length;
    if (c.live && n > 1) await checkCredits(this.o.db, account._id, n);
    await this.store.storeItems(job, spec.items);
    phases.stored = performance.now();
    const outcome = await this.store.insertJob(account, job, c.live && n > 0);
    phases.charged = performance.now();
    if (outcome !== 'stored') {
      // Another request with this key stored its job first (a duplicate outliving the
      // pending record): that one stands, ours goes.
      await this.store.dropItems(job._id);
      await c.releaseDaily();
      await this.o.limits.releaseSlot(account._id, spec.kind, job._id);
      return outcome;
    }
    c.stored = 'yes';
    const messages = spec.items.map((it, seq) => ({ seq, email: it.email }));
    if (spec.kind === 'list' && this.publishAfterAnswer(job, messages)) phases.published = false;
    else await this.publisher.publishItems(job, messages);
    return undefined;
  }

  private async giveBack(c: Creation): Promise<void> {
    await c.releaseDaily();
    await this.o.limits.releaseSlot(c.account._id, c.spec.kind, c.job._id);
    await this.store.dropItems(c.job._id);
  }

  private logPhases(job: JobDoc, phases: Creation['phases']): void {
    const end = performance.now();
    const { t0 } = phases;
    const publish = phases.published ? { publish_ms: Math.round(end - phases.charged) } : { publishing: 'after the answer' };
    this.o.log.debug({ job_id: job._id, items: job.total, ms: Math.round(end - t0), items_ms: Math.round(phases.stored - t0), charge_ms: Math.round(phases.charged - phases.stored), ...publish }, 'job stored');
  }

  /**
   * A stored and paid list job's messages go out after its answer, unless this process already
   * publishes backgroundPublishMaxJobs jobs so or is shutting down (then the caller publishes them
   * before answering). Whatever fails here stays behind the job's publish mark, where the
   * scheduler's sweep republishes it (docs/data-model.md "Flow of one item"). True when taken.
   */
  private publishAfterAnswer(job: JobDoc, messages: Array<{ seq: number; email: string }>): boolean {
    if (this.draining || this.publishing.size >= this.o.backgroundPublishMaxJobs) return false;
    const run: Promise<void> = this.publisher
      .publishItems(job, messages)
      .catch((err: Error) => this.o.log.warn({ job_id: job._id, err: err.message }, "publishing a list job's messages after its answer failed; the scheduler's sweep republishes them from its mark"))
      .finally(() => this.publishing.delete(run));
    this.publishing.add(run);
    return true;
  }

  /** Shutting down: later jobs publish before their answer, and those publishing after theirs finish. */
  async drain(): Promise<void> {
    this.draining = true;
    await Promise.allSettled([...this.publishing]);
  }

  /** The job an Idempotency-Key made within the window; a key used again after it is freed. */
  private async keyedJob(accountId: string, idemKey: string): Promise<JobDoc | null> {
    const job = await this.jobs.findOne({ account_id: accountId, idem_key: idemKey });
    if (!job) return null;
    if (job.created_at.getTime() >= Date.now() - this.o.idempotencyWindowSeconds * 1000) return job;
    await this.jobs.updateOne({ _id: job._id, idem_key: idemKey }, { $unset: { idem_key: '' } });
    return null;
  }

  /**
   * A retry of a request whose job exists: nothing is charged or stored again. If the job's
   * messages may not all have gone out, its queued items from the publish mark on are published
   * again (same message ids: JetStream drops what it already holds) and the mark is cleared.
   */
  private async resume(job: JobDoc): Promise<JobDoc> {
    if (job.status !== 'running' || !job.unpublished) return job;
    const rest = await this.items.find({ job_id: job._id, seq: { $gte: job.unpublished.from_seq }, state: 'queued' }, { projection: { seq: 1, email: 1 } }).sort({ seq: 1 }).toArray();
    await this.publisher.publish(job, rest);
    await this.publisher.markPublished(job, job.total);
    this.o.log.info({ job_id: job._id, republished: rest.length }, 'idempotent retry resumed its job');
    return (await this.jobs.findOne({ _id: job._id })) ?? job;
  }

  async get(accountId: string, jobId: string): Promise<JobDoc | null> {
    return this.jobs.findOne({ _id: jobId, account_id: accountId });
  }

  async getAny(jobId: string): Promise<JobDoc | null> {
    return this.jobs.findOne({ _id: jobId });
  }

  /** Newest first; the cursor is the last job id of the previous page. */
  async list(accountId: string, status: JobStatus | undefined, limit: number, afterId: string | undefined): Promise<{ jobs: JobDoc[]; next: string | null }> {
    const filter: Record<string, unknown> = { account_id: accountId };
    if (status) filter.status = status;
    if (afterId) filter._id = { $lt: afterId };
    const docs = await this.jobs.find(filter).sort({ _id: -1 }).limit(limit + 1).toArray();
    const more = docs.length > limit;
    const page = docs.slice(0, limit);
    return { jobs: page, next: more ? page[page.length - 1]!._id : null };
  }

  /**
   * DELETE /v1/jobs/{id}: the job turns canceled (from running, once), every unprocessed item turns
   * canceled, and their number is refunded under `refund:<job>:cancel`. Running it again retries a
   * refund that a crash interrupted, and can never refund twice.
   */
  async cancel(caller: Caller, jobId: string): Promise<JobDoc> {
    const job = await this.get(caller.account._id, jobId);
    if (!job) throw new ApiError('not_found', `No job ${jobId} on this account.`);
    if (job.status === 'completed' || job.status === 'failed') throw new ApiError('conflict', `Job ${jobId} has already ${job.status === 'completed' ? 'completed' : 'failed'}; nothing to cancel.`);
    const now = new Date();
    if (job.status === 'running') {
      await this.jobs.updateOne({ _id: jobId, status: 'running' }, { $set: { status: 'canceled', updated_at: now, completed_at: now } });
    }
    const after = await this.get(caller.account._id, jobId);
    if (!after || after.status !== 'canceled') return after ?? job; // finished meanwhile
    await this.items.updateMany({ job_id: jobId, state: { $in: ['queued', 'waiting_retry'] } }, { $set: { state: 'canceled', updated_at: now } });
    await this.o.limits.releaseSlot(job.account_id, job.kind, jobId);
    if (job.mode === 'live') {
      const canceled = await this.items.countDocuments({ job_id: jobId, state: 'canceled' });
      if (canceled > 0) await refundCanceled(this.o.db, job, canceled, now);
    }
    return (await this.get(caller.account._id, jobId)) ?? after;
  }
}

export function jobTooLarge(n: number, max: number): ApiError {
  return new ApiError('job_too_large', `The list holds ${n} unique addresses; this account's plan allows ${max} per job. Split the list.`, { limit: max, received: n });
}
