// The rescan planner: while this replica holds the lease, every tick publishes the monitored
// domains whose next scan is due (oldest first, a bounded batch, served by the `next_scan` index)
// and marks them planned. docs/portfolio-scanner.md "Workers and planner".
//
// Marking moves next_scan_at to now + grace, so the next tick does not see the domain again; the
// store moves it to the next slot. A domain is published first and then marked, in one write with
// the message's stream sequence: the mark is a compare-and-set on the due time read, so a worker
// that stored the scan in between (the store moves the due time on) is never overwritten, and a
// planner that dies between the two leaves the domain due: the next tick publishes it again under
// the same message id, which JetStream answers as a duplicate with the first message's sequence
// (one write per domain: marking first and adding the sequence after was two).
//
// When the grace passes and the slot is still not stored, the planner looks for the message it
// published (by stream sequence): still queued (a backlog) → wait another grace; gone (ended,
// expired, purged) → publish again.
import type { NatsConnection } from '@nats-io/transport-node';
import type { AnyBulkWriteOperation, Db } from 'mongodb';
import type { Redis } from 'ioredis';
import { COLLECTIONS, type CorpusDomainDoc, type PortfolioScanMessage } from '@dv/contracts';
import { JetStreamPublisher, type Logger } from '@dv/runtime';
import { nextDueAt, slotOf } from '../store/index.ts';
import { scanMessageId } from '../worker/request.ts';
import { getStreamMessage, SCAN_SUBJECTS } from '../worker/stream.ts';
import { Lease } from './lease.ts';

export interface PlannerConfig {
  REDIS_PREFIX: string;
  PORTFOLIO_RESCAN_INTERVAL_S: number;
  PORTFOLIO_PLAN_TICK_MS: number;
  PORTFOLIO_PLAN_BATCH: number;
  PORTFOLIO_PLAN_DELAY_MS: number;
  PORTFOLIO_PLAN_GRACE_S: number;
  PORTFOLIO_PLANNER_LEASE_MS: number;
}

export interface PlannerDeps {
  nc: NatsConnection;
  db: Db;
  redis: Redis;
  log: Logger;
  config: PlannerConfig;
}

export interface TickResult {
  published: number;
  republished: number;
  /** Due again after the grace but their message is still queued: left waiting. */
  stillQueued: number;
}

type DueDoc = Pick<CorpusDomainDoc, '_id' | 'next_scan_at' | 'last_slot' | 'planned_slot' | 'planned_seq' | 'last_full_dkim_at'> & {
  result?: Pick<NonNullable<CorpusDomainDoc['result']>, 'dkim_selectors' | 'ns'> | null;
};

/** The due query's fields: the planner's own, and a scan's start (carried in the message, see `start`). */
const DUE_PROJECTION = { next_scan_at: 1, last_slot: 1, planned_slot: 1, planned_seq: 1, last_full_dkim_at: 1, 'result.dkim_selectors': 1, 'result.ns': 1 } as const;

export class Planner {
  readonly lease: Lease;
  private readonly d: PlannerDeps;
  private readonly publisher: JetStreamPublisher;
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<unknown> | null = null;

  constructor(deps: PlannerDeps) {
    this.d = deps;
    this.publisher = new JetStreamPublisher(deps.nc);
    this.lease = new Lease({ redis: deps.redis, key: `${deps.config.REDIS_PREFIX}planner-lease`, leaseMs: deps.config.PORTFOLIO_PLANNER_LEASE_MS, log: deps.log });
  }

  start(): void {
    this.lease.start();
    this.timer = setInterval(() => {
      if (this.ticking || !this.lease.held) return;
      this.ticking = this.tick()
        .then((r) => {
          if (r.published + r.republished > 0) this.d.log.debug(r, 'planner tick');
        })
        .catch((err: Error) => this.d.log.warn({ err: err.message }, 'planner tick failed; trying again next tick'))
        .finally(() => {
          this.ticking = null;
        });
    }, this.d.config.PORTFOLIO_PLAN_TICK_MS);
  }

  /** Stops ticking, waits for the tick in progress and gives the lease up. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.ticking;
    await this.lease.stop();
    this.publisher.close();
  }

  /** What a killed replica does: stops without giving the lease up (for tests). */
  halt(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.lease.halt();
  }

  /** One planning pass (the lease is the caller's business). */
  async tick(now = new Date()): Promise<TickResult> {
    const c = this.d.config;
    const corpus = this.d.db.collection<CorpusDomainDoc>(COLLECTIONS.portfolioCorpus.name);
    const graceMs = Math.min(c.PORTFOLIO_PLAN_GRACE_S * 1000, (c.PORTFOLIO_RESCAN_INTERVAL_S * 1000) / 2);
    const due = (await corpus
      .find({ next_scan_at: { $lte: new Date(now.getTime() - c.PORTFOLIO_PLAN_DELAY_MS) }, watchers: { $gt: 0 } }, { projection: DUE_PROJECTION })
      .sort({ next_scan_at: 1 })
      .limit(c.PORTFOLIO_PLAN_BATCH)
      .toArray()) as DueDoc[];
    const result: TickResult = { published: 0, republished: 0, stillQueued: 0 };
    if (due.length === 0) return result;

    const later = new Date(now.getTime() + graceMs);
    const marks: AnyBulkWriteOperation<CorpusDomainDoc>[] = [];
    const toPublish: { msg: PortfolioScanMessage; filter: { _id: string; next_scan_at: Date | null } }[] = [];
    await Promise.all(
      due.map(async (doc) => {
        const slot = slotOf(doc._id, now, c.PORTFOLIO_RESCAN_INTERVAL_S);
        // Compare-and-set on the due time read: a store that just moved it on wins.
        const filter = { _id: doc._id, next_scan_at: doc.next_scan_at };
        if (doc.last_slot !== null && doc.last_slot >= slot) {
          marks.push({ updateOne: { filter, update: { $set: { next_scan_at: nextDueAt(doc._id, c.PORTFOLIO_RESCAN_INTERVAL_S, now) } } } });
          return;
        }
        let reason: PortfolioScanMessage['reason'] = 'due';
        if (doc.planned_slot === slot) {
          if (doc.planned_seq != null && (await this.stillQueued(doc.planned_seq))) {
            result.stillQueued++;
            marks.push({ updateOne: { filter, update: { $set: { next_scan_at: later } } } });
            return;
          }
          reason = 'republish';
        }
        const start = { last_slot: doc.last_slot, last_full_dkim_at: doc.last_full_dkim_at?.getTime() ?? null, dkim_selectors: doc.result?.dkim_selectors ?? null, ns: doc.result?.ns ?? null };
        toPublish.push({ msg: { domain: doc._id, slot, reason, start }, filter });
      }),
    );

    await Promise.all(
      toPublish.map(async ({ msg, filter }) => {
        try {
          // A republish follows a message known to be gone: an id of its own, or JetStream would
          // drop it as a duplicate while the first id is inside the duplicate window.
          const id = msg.reason === 'republish' ? `${scanMessageId(msg.domain, msg.slot)}:r${now.getTime()}` : scanMessageId(msg.domain, msg.slot);
          const ack = await this.publisher.publish(SCAN_SUBJECTS.rescan, JSON.stringify(msg), { msgID: id });
          // A duplicate (the API's priority request for this slot) answers with that message's sequence.
          marks.push({ updateOne: { filter, update: { $set: { planned_slot: msg.slot, planned_seq: ack.seq, planned_at: now, next_scan_at: later } } } });
          if (msg.reason === 'republish') result.republished++;
          else result.published++;
        } catch (err) {
          // Not published and not marked: still due, so the next tick tries again.
          this.d.log.warn({ err: (err as Error).message, domain: msg.domain }, 'planner publish failed');
        }
      }),
    );
    if (marks.length > 0) await corpus.bulkWrite(marks, { ordered: false });
    const republishes = toPublish.map((p) => p.msg).filter((m) => m.reason === 'republish');
    if (republishes.length > 0) this.d.log.warn({ domains: republishes.slice(0, 10).map((m) => m.domain), count: republishes.length }, 'scan messages lost; published again');
    return result;
  }

  /** True when the stream still holds the message (queued or in a worker's hands). */
  private async stillQueued(seq: number): Promise<boolean> {
    const msg = await getStreamMessage(this.d.nc, { seq });
    return msg !== null && (msg.subject === SCAN_SUBJECTS.rescan || msg.subject === SCAN_SUBJECTS.priority);
  }
}
