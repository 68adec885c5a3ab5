// The first steps of every item: parse, load, skip what is already settled, then the answers that
// need no SMTP session (syntax/list prechecks, sandbox table, shared cache). Everything else goes
// to the live path (DNS, batching, politeness, probe).
import type { Db } from 'mongodb';
import type { JsMsg } from '@nats-io/jetstream';
import { COLLECTIONS, itemId, verifyItemMessage, type CacheDoc, type JobDoc, type JobItemDoc } from '@dv/contracts';
import type { Logger } from '@dv/runtime';
import { precheck, sandboxResult } from '@dv/verdict';
import type { Finisher } from './finisher.ts';
import { releaseHeld, type HeldItem } from './held.ts';
import { BatchLoader } from './memo.ts';
import type { ResultStore } from './store.ts';

const DAY_MS = 86_400_000;
/** A parked item whose due time is further away than this was parked after this message was sent: the message is stale. */
const STALE_SLACK_MS = 1_000;
const JOB_CACHE_MS = 2_000;

export interface PipelineDeps {
  db: Db;
  log: Logger;
  store: ResultStore;
  finisher: Finisher;
  /** Hands an item that needs an SMTP session to the live path. */
  live: (h: HeldItem) => void;
  held: Set<HeldItem>;
}

export class Pipeline {
  private readonly d: PipelineDeps;
  private readonly jobCache = new Map<string, { job: JobDoc; atMs: number }>();
  /** Items of messages pulled in the same moment are read with one query. */
  private readonly items: BatchLoader<JobItemDoc>;

  constructor(deps: PipelineDeps) {
    this.d = deps;
    this.items = new BatchLoader(async (ids) => {
      const docs = await deps.db.collection<JobItemDoc>(COLLECTIONS.jobItems.name).find({ _id: { $in: ids } }).toArray();
      return new Map(docs.map((d) => [d._id, d]));
    });
  }

  /** Never throws: a failure releases the message for redelivery. */
  async onMessage(msg: JsMsg, priority: 'single' | 'list'): Promise<void> {
    let parsed;
    try {
      parsed = verifyItemMessage.safeParse(msg.json());
    } catch {
      parsed = null;
    }
    if (!parsed?.success) {
      this.d.log.error({ subject: msg.subject, seq: msg.seq }, 'malformed VerifyItemMessage; dropped');
      msg.term('malformed');
      return;
    }
    const message = parsed.data;
    try {
      const item = await this.items.get(itemId(message.job_id, message.seq));
      if (!item) {
        // The gateway inserts items before publishing; no item means the job expired or never existed.
        msg.ack();
        return;
      }
      if (item.state === 'done') {
        // A redelivery after a crash between store and ack: finish what may not have happened.
        await this.d.store.checkCompletion(item.job_id);
        msg.ack();
        return;
      }
      if (item.state === 'canceled') {
        msg.ack();
        return;
      }
      const now = Date.now();
      if (item.state === 'waiting_retry' && item.next_attempt_at && item.next_attempt_at.getTime() > now + STALE_SLACK_MS) {
        // The item is parked (acked earlier); the retry sweep re-enqueues it when due.
        msg.ack();
        return;
      }
      const job = await this.job(item.job_id);
      if (!job || job.status !== 'running') {
        msg.ack();
        return;
      }
      if (job.deadline_at && job.deadline_at.getTime() <= now) {
        // The deadline sweep ends every leftover item of the job (and refunds them) from MongoDB.
        msg.ack();
        return;
      }
      const h: HeldItem = { msg, message, item, job, priority, receivedAtMs: now, redispatches: 0, settled: false };
      this.route(h);
    } catch (err) {
      this.d.log.error({ err, job_id: message.job_id, seq: message.seq }, 'item intake failed; released');
      msg.nak(1_000);
    }
  }

  private route(h: HeldItem): void {
    const now = new Date();
    const { item, job } = h;
    if (job.mode === 'sandbox') {
      this.track(h);
      this.d.finisher.finish(h, sandboxResult(item.email, now, item.ref), 1);
      return;
    }
    const pre = precheck(item.email, now, item.ref);
    if (pre.result) {
      this.track(h);
      this.d.finisher.finish(h, pre.result, 0);
      return;
    }
    if (!pre.syntax.ok) throw new Error('precheck gave no result for a failed syntax check');
    h.syntax = pre.syntax;
    h.lists = pre.lists ?? undefined;
    this.track(h);
    void this.fromCache(h).then(
      (served) => {
        if (!served) this.d.live(h);
      },
      (err: unknown) => {
        this.d.log.error({ err }, 'cache lookup failed; releasing');
        releaseHeld(h, 1_000);
      },
    );
  }

  /** Serves a stored verdict when the caller allows its age (max_age_days) and did not ask for fresh. */
  private async fromCache(h: HeldItem): Promise<boolean> {
    const { message, item } = h;
    if (message.force_fresh || h.job.force_fresh || message.max_age_days === null) return false;
    const since = new Date(Date.now() - message.max_age_days * DAY_MS);
    const hit = await this.d.db.collection<CacheDoc>(COLLECTIONS.verificationCache.name).findOne({ email: item.email.toLowerCase(), checked_at: { $gte: since } });
    if (!hit) return false;
    this.d.finisher.finish(h, { ...hit.result, email: item.email, ref: item.ref, cached: true }, hit.result.attempts);
    return true;
  }

  private track(h: HeldItem): void {
    this.d.held.add(h);
    h.onSettle = () => this.d.held.delete(h);
  }

  private async job(jobId: string): Promise<JobDoc | null> {
    const cached = this.jobCache.get(jobId);
    if (cached && Date.now() - cached.atMs < JOB_CACHE_MS) return cached.job;
    const job = await this.d.db.collection<JobDoc>(COLLECTIONS.jobs.name).findOne({ _id: jobId });
    if (job) this.jobCache.set(jobId, { job, atMs: Date.now() });
    if (this.jobCache.size > 10_000) {
      for (const [id, v] of this.jobCache) if (Date.now() - v.atMs >= JOB_CACHE_MS) this.jobCache.delete(id);
    }
    return job;
  }
}
