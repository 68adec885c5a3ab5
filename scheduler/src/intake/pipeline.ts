// The first steps of every item: parse, load, skip what is already settled, then the answers that
// need no SMTP session (syntax/list prechecks, sandbox table or stored sandbox result, shared
// cache). Everything else goes to the live path (DNS, batching, politeness, probe).
import type { Db } from 'mongodb';
import type { JsMsg } from '@nats-io/jetstream';
import { COLLECTIONS, cacheId, itemId, verifyItemMessage, type CacheDoc, type JobDoc, type JobItemDoc, type VerifyItemMessage } from '@dv/contracts';
import { requestIdOf, type Lease, type Logger } from '@dv/runtime';
import { precheck } from '@dv/verdict';
import type { Finisher } from '../store/finisher.ts';
import { releaseHeld, type HeldFacts, type HeldItem } from './held-item.ts';
import { BatchLoader, Memo } from './coalesce.ts';
import { poisonResult, type PoisonReason } from './poison-result.ts';
import { sandboxAnswer } from './sandbox.ts';
import type { ResultStore } from '../store/store.ts';

const DAY_MS = 86_400_000;
/** A parked item whose due time is further away than this was parked after this message was sent: the message is stale. */
const STALE_SLACK_MS = 1_000;
const JOB_CACHE_MS = 2_000;

/** What intake reads of an item: the held facts plus what decides whether to work it (not meta, result, dates). */
type LoadedItem = HeldFacts & Pick<JobItemDoc, 'state' | 'next_attempt_at'>;
const ITEM_PROJECTION = { _id: 1, job_id: 1, account_id: 1, email: 1, ref: 1, attempts: 1, source_ip: 1, first_attempt_at: 1, probe_node: 1, state: 1, next_attempt_at: 1 } as const;

export interface PipelineDeps {
  db: Db;
  log: Logger;
  store: ResultStore;
  finisher: Finisher;
  /** Hands an item that needs an SMTP session to the live path. */
  live: (h: HeldItem) => void;
  held: Set<HeldItem>;
  /** VERIFY_MAX_DELIVERIES: a message delivered more often than this ends its item (poison-result.ts). */
  maxDeliveries: number;
  /** Counts and logs an item given up (the metric lives with the scheduler's). */
  onPoison: (h: HeldItem, reason: PoisonReason, count: number) => void;
}

export class Pipeline {
  private readonly d: PipelineDeps;
  /** Jobs re-read at most every JOB_CACHE_MS; a missing job is not remembered (it may be being created). */
  private readonly jobs = new Memo<JobDoc | null>(JOB_CACHE_MS, 10_000, (job) => job !== null);
  /** Items of messages pulled in the same moment are read with one query. */
  private readonly items: BatchLoader<LoadedItem>;

  constructor(deps: PipelineDeps) {
    this.d = deps;
    this.items = new BatchLoader(async (ids) => {
      const docs = await deps.db.collection<JobItemDoc>(COLLECTIONS.jobItems.name).find({ _id: { $in: ids } }, { projection: ITEM_PROJECTION }).toArray() as LoadedItem[];
      return new Map(docs.map((d) => [d._id, d]));
    });
  }

  /**
   * Never throws: a failure releases the message for redelivery. Not async: the JsMsg is parsed
   * and dropped here, so the item load that follows (which waits behind the store's writes when
   * MongoDB is busy) holds only the ack handle (`lease`, answering by reply subject) and the
   * parsed message.
   */
  onMessage(msg: JsMsg, lease: Lease, priority: 'single' | 'list'): Promise<void> {
    let parsed;
    try {
      parsed = verifyItemMessage.safeParse(msg.json());
    } catch {
      parsed = null;
    }
    if (!parsed?.success) {
      this.d.log.error({ subject: msg.subject, seq: msg.seq }, 'malformed VerifyItemMessage; dropped');
      lease.term('malformed');
      return Promise.resolve();
    }
    return this.admit(lease, parsed.data, priority, msg.info.deliveryCount, requestIdOf(msg.headers));
  }

  private async admit(msg: Lease, message: VerifyItemMessage, priority: 'single' | 'list', deliveries: number, requestId?: string): Promise<void> {
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
      // Only the ack subject and the few fields used later are kept (held-item.ts, "Memory").
      const facts: HeldFacts = {
        _id: item._id,
        // The job's strings, shared by all its items, instead of a copy per item document.
        job_id: job._id,
        account_id: item.account_id === job.account_id ? job.account_id : item.account_id,
        email: item.email,
        ref: item.ref,
        attempts: item.attempts,
        source_ip: item.source_ip,
        first_attempt_at: item.first_attempt_at ?? null,
        probe_node: item.probe_node ?? null,
      };
      const h: HeldItem = { msg, item: facts, mode: job.mode, priority, receivedAtMs: now, redispatches: 0, settled: false, requestId };
      if (deliveries > this.d.maxDeliveries) {
        // Worked and released this often already: whatever keeps failing would fail again.
        this.track(h);
        this.d.finisher.finish(h, poisonResult(h, 'deliveries', deliveries - 1, new Date(now)), item.attempts);
        this.d.onPoison(h, 'deliveries', deliveries - 1);
        return;
      }
      this.route(h, job, message);
    } catch (err) {
      this.d.log.error({ err, job_id: message.job_id, seq: message.seq, request_id: requestId }, 'item intake failed; released');
      msg.nak(1_000);
    }
  }

  private route(h: HeldItem, job: JobDoc, message: VerifyItemMessage): void {
    const now = new Date();
    const { item } = h;
    const useCache = !(message.force_fresh || job.force_fresh || message.max_age_days === null);
    if (job.mode === 'sandbox') {
      this.track(h);
      const ask = { accountId: item.account_id, email: item.email, ref: item.ref, maxAgeDays: useCache ? (message.max_age_days ?? 0) : null };
      void sandboxAnswer(this.d.db, ask, now).then(
        (a) => this.d.finisher.finish(h, a.result, a.attempts),
        (err: unknown) => {
          this.d.log.error({ err }, 'stored sandbox result lookup failed; releasing');
          releaseHeld(h, 1_000);
        },
      );
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
    const maxAgeDays = message.max_age_days ?? 0;
    void (useCache ? this.fromCache(h, maxAgeDays) : Promise.resolve(false)).then(
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
  private async fromCache(h: HeldItem, maxAgeDays: number): Promise<boolean> {
    const { item } = h;
    const since = new Date(Date.now() - maxAgeDays * DAY_MS);
    const hit = await this.d.db.collection<CacheDoc>(COLLECTIONS.verificationCache.name).findOne({ _id: cacheId(item.email), checked_at: { $gte: since } });
    if (!hit) return false;
    this.d.finisher.finish(h, { ...hit.result, email: item.email, ref: item.ref, cached: true }, hit.result.attempts);
    return true;
  }

  private track(h: HeldItem): void {
    this.d.held.add(h);
    h.owner = this.d.held;
  }

  /**
   * The job, re-read at most every JOB_CACHE_MS. Concurrent misses share one read: when the entry
   * expires, the hundreds of messages of one pull would otherwise each read the job document
   * (an allocation profile showed these reads as the largest source of promoted garbage, and each
   * is work for MongoDB, the bottleneck).
   */
  private job(jobId: string): Promise<JobDoc | null> {
    return this.jobs.get(jobId, () => this.d.db.collection<JobDoc>(COLLECTIONS.jobs.name).findOne({ _id: jobId }));
  }
}
