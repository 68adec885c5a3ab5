// The rescan planner: while this replica holds the lease, every tick publishes the monitored
// domains whose next scan is due (oldest first, a bounded batch, served by the `next_scan` index)
// and marks them planned. docs/portfolio-scanner.md "Workers and planner".
//
// Marking moves next_scan_at to now + grace, so the next tick does not see the domain again; the
// store moves it to the next slot. Domains are published first and then marked, all those of a
// tick in one update: a compare-and-set on the due time having passed (`next_scan_at` still at or
// before the query's bound), so a worker that stored the scan in between (the store moves the due
// time on) is never overwritten, and a planner that dies between the two leaves the domain due: the
// next tick publishes it again under the same message id, which JetStream answers as a duplicate
// with the first message's sequence. The messages' sequences go into one tick document
// (`portfolio_plan_ticks`), named on each domain by `planned_tick`: a write per tick rather than
// one per domain (in MongoDB's CPU, a per-domain update cost ~0.33 ms, the tick's one ~0.1 ms a domain).
//
// When the grace passes and the slot is still not stored, the planner looks for the message it
// published (by the stream sequence in its tick): still queued (a backlog) → wait another grace;
// gone (ended, expired, purged, or its tick document expired) → publish again.
import type { NatsConnection } from '@nats-io/transport-node';
import type { AnyBulkWriteOperation, Db } from 'mongodb';
import type { Redis } from 'ioredis';
import { randomBytes } from 'node:crypto';
import { COLLECTIONS, type CorpusDomainDoc, type PlanTickDoc, type PortfolioScanMessage } from '@dv/contracts';
import { JetStreamPublisher, type Logger } from '@dv/runtime';
import { PORTFOLIO_DEFAULTS } from '../defaults.ts';
import { nextDueAt, slotOf } from '../store/index.ts';
import { getStreamMessage, SCAN_SUBJECTS } from '../worker/stream.ts';
import { Lease } from './lease.ts';
import { planMessageId, planTick, tickWindow, type DueDoc, type TickWindow } from './plan-tick.ts';

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


/** The due query's fields: the planner's own, and a scan's start (carried in the message, see `start`). */
const DUE_PROJECTION = { next_scan_at: 1, last_slot: 1, planned_at: 1, planned_tick: 1, last_full_dkim_at: 1, 'result.dkim_selectors': 1, 'result.ns': 1 } as const;

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
    const intervalS = this.d.config.PORTFOLIO_RESCAN_INTERVAL_S;
    const window = tickWindow(this.d.config, now);
    await this.pullIn(now);
    const due = await this.findDue(window.dueBy);
    const result: TickResult = { published: 0, republished: 0, stillQueued: 0 };
    if (due.length === 0) return result;

    const marks: AnyBulkWriteOperation<CorpusDomainDoc>[] = [];
    const waiting: string[] = [];
    const toPublish: PortfolioScanMessage[] = [];
    const actions = planTick(due, now, intervalS, await this.plannedSequences(due, now));
    await Promise.all(
      actions.map(async (a) => {
        if (a.kind === 'advance') {
          marks.push({ updateOne: { filter: { _id: a.domain, next_scan_at: a.readDueAt }, update: { $set: { next_scan_at: a.nextScanAt } } } });
          return;
        }
        if (a.queuedSeq !== undefined && (await this.stillQueued(a.queuedSeq))) {
          result.stillQueued++;
          waiting.push(a.msg.domain);
          return;
        }
        toPublish.push(a.msg);
      }),
    );
    const published = await this.publishAll(toPublish, now, result);
    await this.markPlanned(marks, published, waiting, now, window);
    const republishes = toPublish.filter((m) => m.reason === 'republish');
    if (republishes.length > 0) this.d.log.warn({ domains: republishes.slice(0, 10).map((m) => m.domain), count: republishes.length }, 'scan messages lost; published again');
    return result;
  }

  /** The monitored domains due by `dueBy`, oldest first, a bounded batch (the `next_scan` index). */
  private async findDue(dueBy: Date): Promise<DueDoc[]> {
    const corpus = this.d.db.collection<CorpusDomainDoc>(COLLECTIONS.portfolioCorpus.name);
    return (await corpus
      .find({ next_scan_at: { $lte: dueBy }, watchers: { $gt: 0 } }, { projection: DUE_PROJECTION })
      .sort({ next_scan_at: 1 })
      .limit(this.d.config.PORTFOLIO_PLAN_BATCH)
      .toArray()) as DueDoc[];
  }

  /** Publishes the messages at once; counts them in `result`; answers the stream sequence of each one published. */
  private async publishAll(toPublish: PortfolioScanMessage[], now: Date, result: TickResult): Promise<{ domain: string; seq: number }[]> {
    const published: { domain: string; seq: number }[] = [];
    await Promise.all(
      toPublish.map(async (msg) => {
        try {
          const ack = await this.publisher.publish(SCAN_SUBJECTS.rescan, JSON.stringify(msg), { msgID: planMessageId(msg, now) });
          // A duplicate (the API's priority request for this slot) answers with that message's sequence.
          published.push({ domain: msg.domain, seq: ack.seq });
          if (msg.reason === 'republish') result.republished++;
          else result.published++;
        } catch (err) {
          // Not published and not marked: still due, so the next tick tries again.
          this.d.log.warn({ err: (err as Error).message, domain: msg.domain }, 'planner publish failed');
        }
      }),
    );
    return published;
  }

  /** Writes the tick document of the published messages and marks the domains planned (or waiting), in one bulk write. */
  private async markPlanned(marks: AnyBulkWriteOperation<CorpusDomainDoc>[], published: { domain: string; seq: number }[], waiting: string[], now: Date, { dueBy, graceMs, later }: TickWindow): Promise<void> {
    const c = this.d.config;
    // The due time having passed is the compare-and-set: a store in between moved it past `dueBy`.
    const stillDue = (ids: string[]) => ({ _id: { $in: ids }, next_scan_at: { $lte: dueBy } });
    if (published.length > 0) {
      const tick = `${now.getTime()}-${randomBytes(4).toString('hex')}`;
      const expires = new Date(now.getTime() + c.PORTFOLIO_RESCAN_INTERVAL_S * 1000 + graceMs);
      await this.d.db
        .collection<PlanTickDoc>(COLLECTIONS.portfolioPlanTicks.name)
        .insertOne({ _id: tick, at: now, domains: published.map((p) => p.domain), seqs: published.map((p) => p.seq), expires_at: expires });
      marks.push({ updateMany: { filter: stillDue(published.map((p) => p.domain)), update: { $set: { planned_at: now, planned_tick: tick, next_scan_at: later } } } });
    }
    if (waiting.length > 0) marks.push({ updateMany: { filter: stillDue(waiting), update: { $set: { next_scan_at: later } } } });
    if (marks.length > 0) await this.d.db.collection<CorpusDomainDoc>(COLLECTIONS.portfolioCorpus.name).bulkWrite(marks, { ordered: false });
  }

  /**
   * Domains whose due time is further away than the interval (planned before
   * PORTFOLIO_RESCAN_INTERVAL_S was shortened: the store and the planner never write one) get their
   * next due time under the current interval, each at its own phase, so they are spread over it
   * rather than due at once. A bounded batch per tick, served by the `next_scan` index (none such:
   * one index seek); a compare-and-set on the due time read, so a store in between wins.
   */
  private async pullIn(now: Date): Promise<number> {
    const { PORTFOLIO_RESCAN_INTERVAL_S: intervalS, PORTFOLIO_PLAN_BATCH: batch } = this.d.config;
    const corpus = this.d.db.collection<CorpusDomainDoc>(COLLECTIONS.portfolioCorpus.name);
    const beyond = new Date(now.getTime() + intervalS * 1000 + PORTFOLIO_DEFAULTS.planPullInMarginMs);
    const far = await corpus.find({ next_scan_at: { $gt: beyond } }, { projection: { next_scan_at: 1 } }).limit(batch).toArray();
    if (far.length === 0) return 0;
    await corpus.bulkWrite(
      far.map((d) => ({ updateOne: { filter: { _id: d._id, next_scan_at: d.next_scan_at }, update: { $set: { next_scan_at: nextDueAt(d._id, intervalS, now) } } } })),
      { ordered: false },
    );
    this.d.log.info({ domains: far.length, intervalS }, 'due times beyond the rescan interval brought within it');
    return far.length;
  }

  /**
   * The stream sequence of the message each due domain was last published in, for those published
   * in the current slot (the only ones whose message may still be waiting): their ticks, read at once.
   */
  private async plannedSequences(due: readonly DueDoc[], now: Date): Promise<Map<string, number>> {
    const intervalS = this.d.config.PORTFOLIO_RESCAN_INTERVAL_S;
    const inSlot = due.filter((d) => d.planned_tick && d.planned_at && slotOf(d._id, d.planned_at, intervalS) === slotOf(d._id, now, intervalS));
    const out = new Map<string, number>();
    if (inSlot.length === 0) return out;
    const wanted = new Set(inSlot.map((d) => d._id));
    const ticks = await this.d.db
      .collection<PlanTickDoc>(COLLECTIONS.portfolioPlanTicks.name)
      .find({ _id: { $in: [...new Set(inSlot.map((d) => d.planned_tick as string))] } })
      .toArray();
    for (const t of ticks) t.domains.forEach((d, i) => wanted.has(d) && out.set(d, t.seqs[i] as number));
    return out;
  }

  /** True when the stream still holds the message (queued or in a worker's hands). */
  private async stillQueued(seq: number): Promise<boolean> {
    const msg = await getStreamMessage(this.d.nc, { seq });
    return msg !== null && (msg.subject === SCAN_SUBJECTS.rescan || msg.subject === SCAN_SUBJECTS.priority);
  }
}
