// A scan worker: pulls scan messages from the two PORTFOLIO durables shared by every replica
// (priority first: domains just added), scans each domain, stores the result and acks only then.
// docs/portfolio-scanner.md "Workers and planner".
import { performance } from 'node:perf_hooks';
import { jetstream, type Consumer, type ConsumerMessages, type JsMsg } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Db } from 'mongodb';
import type { Registry } from 'prom-client';
import { COLLECTIONS, CONSUMERS, portfolioScanMessage, type CorpusDomainDoc, type PortfolioScanMessage } from '@dv/contracts';
import type { Logger } from '@dv/runtime';
import { PoliteResolver } from '../politeness/index.ts';
import { scanDomain, type ScanDeps } from '../scan/index.ts';
import { nextDueAt, storeScans, type ScanToStore, type storeScan, type StoreScanResult } from '../store/index.ts';
import { PORTFOLIO_DEFAULTS } from '../defaults.ts';
import { Batcher } from './batcher.ts';
import { scanMetrics, type ScanMetrics, type ScanOutcomeLabel, type ScanPriority } from './metrics.ts';
import { isLastDelivery, knownSelectors, retryDelayMs } from './retry.ts';
import { PORTFOLIO_STREAM, SCAN_SUBJECTS } from './stream.ts';

export interface ScanWorkerConfig {
  PORTFOLIO_RESCAN_INTERVAL_S: number;
  PORTFOLIO_SCAN_CONCURRENCY: number;
  PORTFOLIO_SCAN_PRIORITY_RESERVE: number;
  PORTFOLIO_SCAN_RETRY_BASE_MS: number;
  PORTFOLIO_SCAN_RETRY_MAX_MS: number;
  PORTFOLIO_FULL_DKIM_SWEEP_INTERVAL_S: number;
}

export interface ScanWorkerDeps {
  nc: NatsConnection;
  db: Db;
  log: Logger;
  registry: Registry;
  config: ScanWorkerConfig;
  /** Resolver (plain or polite), geo and the shared vendor cache the scans use. */
  scanDeps: ScanDeps;
  /** Replaced in tests (a scan that fails or hangs); scanDomain otherwise. */
  scanDomain?: typeof scanDomain;
  /** Replaced in tests (a store followed by a crash); the grouped stores (Batcher over storeScans) otherwise. */
  storeScan?: typeof storeScan;
  /** Longest a pull request stays open (nats.js minimum 1000). */
  pullExpiresMs?: number;
}

interface Held {
  msg: JsMsg;
  priority: ScanPriority;
  /** Answered, or given back at shutdown: nothing more is sent for it. */
  released: boolean;
}

const DURABLES: Record<ScanPriority, string> = {
  priority: durableFor(SCAN_SUBJECTS.priority),
  rescan: durableFor(SCAN_SUBJECTS.rescan),
};

function durableFor(subject: string): string {
  const def = CONSUMERS.find((c) => c.stream === PORTFOLIO_STREAM && c.filterSubject === subject);
  if (!def) throw new Error(`no PORTFOLIO consumer declared for ${subject}`);
  return def.durable;
}

/** What a scan needs to know before it starts: whether it is due, the selectors and name servers found before. */
const SCAN_START_PROJECTION = { last_slot: 1, watchers: 1, last_full_dkim_at: 1, 'result.dkim_selectors': 1, 'result.ns': 1 } as const;
type ScanStart = Pick<CorpusDomainDoc, '_id' | 'last_slot' | 'watchers' | 'last_full_dkim_at'> & { result?: Pick<NonNullable<CorpusDomainDoc['result']>, 'dkim_selectors' | 'ns'> | null };

/** A rescan's start as the planner read it (published only for watched domains). */
function startOf(domain: string, start: NonNullable<PortfolioScanMessage['start']>): ScanStart {
  return {
    _id: domain,
    last_slot: start.last_slot,
    watchers: 1,
    last_full_dkim_at: start.last_full_dkim_at === null ? null : new Date(start.last_full_dkim_at),
    result: { dkim_selectors: start.dkim_selectors, ns: start.ns },
  };
}

/** Messages in hand at most, as a multiple of the concurrency: scans waiting to be stored included. */
const STORE_BACKLOG = 3;

/**
 * Rescan messages pulled ahead of the scan places, as a fraction of them: a pull goes out only once
 * that many places are free, so a freed place finds its next message waiting, and each pull carries
 * a batch. A pull costs a subscription, a request, timers and an unsubscribe whatever it carries;
 * pulling the one or two places a finished scan frees was a pull per message or so.
 */
const RESCAN_PREFETCH = 0.25;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class ScanWorker {
  private readonly d: ScanWorkerDeps;
  private readonly m: ScanMetrics;
  /** Messages in hand: scanning, or waiting here for a free place (priority ones first). */
  private readonly held = new Set<Held>();
  private readonly waiting: Record<ScanPriority, Held[]> = { priority: [], rescan: [] };
  private readonly pulls = new Set<ConsumerMessages>();
  private readonly loops: Promise<void>[] = [];
  private readonly running = new Set<Promise<void>>();
  /** Messages asked for in each loop's open pull request. */
  private readonly reserved: Record<ScanPriority, number> = { priority: 0, rescan: 0 };
  /** Scans holding a place (reading their document or doing their DNS work). */
  private scanning = 0;
  /** Scans done, waiting for their store. */
  private storing = 0;
  /** Scan places rescans may take: the rest are kept for priority scans (set at start). */
  private rescanPlaces = Infinity;
  private stopped = false;
  private keepAlive: NodeJS.Timeout | null = null;
  /** Per consumer, read from the server at start: tests and operators may change them. */
  private readonly maxDeliver: Record<ScanPriority, number> = { priority: -1, rescan: -1 };
  private wake: (() => void) | null = null;
  /** The corpus documents of scans about to start, read together. */
  private readonly reads: Batcher<string, ScanStart | null>;
  /** The scans that finished, stored together. */
  private readonly stores: Batcher<ScanToStore, StoreScanResult>;

  constructor(deps: ScanWorkerDeps) {
    this.d = deps;
    this.m = scanMetrics(deps.registry);
    const grouping = { maxBatch: PORTFOLIO_DEFAULTS.storeBatchMax, maxInFlight: PORTFOLIO_DEFAULTS.storeBatchesInFlight };
    this.stores = new Batcher((scans) => storeScans(deps.db, scans, { intervalS: deps.config.PORTFOLIO_RESCAN_INTERVAL_S }), { ...grouping, lingerMs: PORTFOLIO_DEFAULTS.storeBatchLingerMs });
    this.reads = new Batcher(async (domains) => {
      const docs = await deps.db
        .collection<CorpusDomainDoc>(COLLECTIONS.portfolioCorpus.name)
        .find({ _id: { $in: [...new Set(domains)] } }, { projection: SCAN_START_PROJECTION })
        .toArray();
      const byId = new Map(docs.map((d) => [d._id, d as ScanStart]));
      return domains.map((d) => byId.get(d) ?? null);
    }, { ...grouping, lingerMs: PORTFOLIO_DEFAULTS.scanReadLingerMs });
  }

  /** Scans in hand. */
  get inFlight(): number {
    return this.held.size;
  }

  async start(): Promise<void> {
    const js = jetstream(this.d.nc);
    const consumers = {} as Record<ScanPriority, Consumer>;
    let ackWaitMs = Infinity;
    for (const p of ['priority', 'rescan'] as const) {
      consumers[p] = await js.consumers.get(PORTFOLIO_STREAM, DURABLES[p]);
      const info = await consumers[p].info(true);
      this.maxDeliver[p] = info.config.max_deliver ?? -1;
      ackWaitMs = Math.min(ackWaitMs, (info.config.ack_wait ?? 30e9) / 1e6);
    }
    // +WPI well within ack_wait, so a long scan (full DKIM sweep behind a slow operator budget) is never redelivered.
    this.keepAlive = setInterval(() => this.touch(), Math.max(100, ackWaitMs / 3));
    const c = this.d.config;
    const reserve = Math.min(c.PORTFOLIO_SCAN_PRIORITY_RESERVE, c.PORTFOLIO_SCAN_CONCURRENCY - 1);
    this.loops.push(this.loop('priority', consumers.priority, c.PORTFOLIO_SCAN_CONCURRENCY, 0));
    const rescanLimit = c.PORTFOLIO_SCAN_CONCURRENCY - reserve;
    this.rescanPlaces = rescanLimit;
    this.loops.push(this.loop('rescan', consumers.rescan, rescanLimit, Math.floor(rescanLimit * RESCAN_PREFETCH)));
  }

  /**
   * Stops pulling, lets the scans in hand finish for up to `drainMs` (each acks as usual), then
   * gives the rest back (nak without delay: another replica takes them at once).
   */
  async stop(drainMs: number): Promise<void> {
    this.stopped = true;
    for (const p of this.pulls) p.stop();
    this.wake?.();
    await Promise.all(this.loops);
    // Not started yet: straight back to the other replicas.
    for (const h of [...this.waiting.priority, ...this.waiting.rescan]) {
      this.answer(h, (msg) => msg.nak());
      this.held.delete(h);
    }
    this.waiting.priority.length = 0;
    this.waiting.rescan.length = 0;
    const drained = Promise.all([...this.running]).then(() => true);
    const inTime = await Promise.race([drained, sleep(drainMs).then(() => false)]);
    if (!inTime) {
      this.d.log.warn({ scans: this.held.size }, 'scans not finished within the drain budget; given back');
      for (const h of this.held) this.answer(h, (msg) => msg.nak());
    }
    this.clearKeepAlive();
  }

  /**
   * What a killed process does: stops everything without answering the messages in hand (JetStream
   * redelivers them after ack_wait). For tests of crash recovery.
   */
  async abandon(): Promise<void> {
    this.stopped = true;
    for (const h of this.held) h.released = true;
    for (const p of this.pulls) p.stop();
    this.wake?.();
    this.clearKeepAlive();
    await Promise.all(this.loops);
  }

  private clearKeepAlive(): void {
    if (this.keepAlive) clearInterval(this.keepAlive);
    this.keepAlive = null;
  }

  private touch(): void {
    for (const h of this.held) {
      if (h.released) continue;
      try {
        h.msg.working();
      } catch {
        // connection closed: the message comes back to someone after ack_wait
      }
    }
  }

  /**
   * Each loop keeps one pull request open for what its limit leaves room for, counting every
   * message in hand but only its own open request: the priority loop is never blocked by the rescan
   * loop's long poll. Both may fill at once, so up to 2 x concurrency messages can be waiting or
   * scanning, plus those waiting for their store (at most STORE_BACKLOG x concurrency in hand in
   * all); scans never run more than `concurrency` at once (pump), the rest wait here, priority first.
   * `prefetch` more may wait beyond the limit; a pull then goes out only for at least that many.
   */
  private async loop(priority: ScanPriority, consumer: Consumer, limit: number, prefetch: number): Promise<void> {
    while (!this.stopped) {
      // Scans waiting for their store no longer count against the limit (they hold no scan place),
      // but what is in hand stays bounded: at most STORE_BACKLOG x concurrency messages.
      // Rescans pulled ahead and waiting for a place do not keep priority messages out.
      const inHand = this.held.size - this.storing - (priority === 'priority' ? this.waiting.rescan.length : 0);
      const cap = STORE_BACKLOG * this.d.config.PORTFOLIO_SCAN_CONCURRENCY - this.held.size;
      const room = Math.min(limit + prefetch - inHand, cap) - this.reserved[priority];
      if (room <= 0 || room < Math.min(prefetch, cap)) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 100);
          this.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        continue;
      }
      this.reserved[priority] += room;
      let received = 0;
      try {
        const msgs = await consumer.fetch({ max_messages: room, expires: this.d.pullExpiresMs ?? 1_000 });
        this.pulls.add(msgs);
        try {
          for await (const msg of msgs) {
            received++;
            this.reserved[priority]--;
            if (this.stopped) {
              // Pulled after stop began: give it straight back.
              msg.nak();
              continue;
            }
            this.begin(msg, priority);
          }
        } finally {
          this.pulls.delete(msgs);
        }
      } catch (err) {
        if (this.stopped) break;
        // NATS restarting or the consumer briefly missing: pull again shortly.
        this.d.log.warn({ err: (err as Error).message, priority }, 'scan pull failed; retrying');
        await sleep(500);
      } finally {
        this.reserved[priority] -= room - received;
      }
    }
  }

  private begin(msg: JsMsg, priority: ScanPriority): void {
    const h: Held = { msg, priority, released: false };
    this.held.add(h);
    this.waiting[priority].push(h);
    this.pump();
  }

  /**
   * Starts waiting scans while places are free, priority first (rescans leave the priority reserve free). A scan gives its place back when its
   * DNS work is done: its store (grouped with others, a MongoDB transaction away) then waits
   * outside the limit, so slow stores do not leave places idle.
   */
  private pump(): void {
    while (this.scanning < this.d.config.PORTFOLIO_SCAN_CONCURRENCY && !this.stopped) {
      const h = this.waiting.priority.shift() ?? (this.scanning < this.rescanPlaces ? this.waiting.rescan.shift() : undefined);
      if (!h) return;
      this.scanning++;
      let placeHeld = true;
      const release = () => {
        if (!placeHeld) return;
        placeHeld = false;
        this.scanning--;
        this.pump();
        this.wake?.();
      };
      const run: Promise<void> = this.handle(h, h.priority, release).finally(() => {
        release();
        this.held.delete(h);
        this.running.delete(run);
        this.wake?.();
      });
      this.running.add(run);
    }
  }

  private async handle(h: Held, priority: ScanPriority, release: () => void): Promise<void> {
    let job: PortfolioScanMessage;
    try {
      job = portfolioScanMessage.parse(h.msg.json());
    } catch (err) {
      this.d.log.error({ err: (err as Error).message, priority, seq: h.msg.seq }, 'unreadable scan message; ended');
      this.count('gave_up');
      this.answer(h, (msg) => msg.term());
      return;
    }
    try {
      const outcome = await this.process(job, h.msg.info.deliveryCount, release);
      if (h.released) return;
      this.answer(h, (msg) => msg.ack());
      this.count(outcome);
    } catch (err) {
      if (h.released) return;
      const deliveries = h.msg.info.deliveryCount;
      if (isLastDelivery(deliveries, this.maxDeliver[priority])) {
        this.d.log.error({ err: (err as Error).message, domain: job.domain, slot: job.slot, deliveries }, 'scan failed on its last delivery; waiting for the next slot');
        // The domain is moved to its next slot before the message ends and the give-up is counted,
        // so whoever sees either (the queue gauges, a test) sees the domain already waiting.
        await this.skipSlot(job).catch(() => undefined);
        this.answer(h, (msg) => msg.term());
        this.count('gave_up');
      } else {
        const delayMs = retryDelayMs(deliveries, this.d.config.PORTFOLIO_SCAN_RETRY_BASE_MS, this.d.config.PORTFOLIO_SCAN_RETRY_MAX_MS);
        this.d.log.warn({ err: (err as Error).message, domain: job.domain, slot: job.slot, deliveries, delayMs }, 'scan failed; retrying later');
        this.count('failed');
        this.answer(h, (msg) => msg.nak(delayMs));
      }
    }
  }

  /** `release`: gives the scan place back (called once the DNS work is done). */
  private async process(job: PortfolioScanMessage, deliveries: number, release: () => void): Promise<ScanOutcomeLabel> {
    const corpus = this.d.db.collection<CorpusDomainDoc>(COLLECTIONS.portfolioCorpus.name);
    // A planned rescan's first delivery starts from what the planner read seconds ago (the store
    // re-checks the slot in its transaction, so a stale start costs at most a scan, never a
    // record); a redelivery may follow another worker's store, so it reads the document.
    const doc = job.start && deliveries <= 1 ? startOf(job.domain, job.start) : await this.reads.add(job.domain);
    // Nobody watches it any more (removed after the message was sent), or this slot is stored already.
    if (doc === null || doc.watchers <= 0) return 'unchanged_slot';
    if (doc.last_slot !== null && doc.last_slot >= job.slot) return 'unchanged_slot';

    const c = this.d.config;
    const now = this.d.scanDeps.now?.() ?? new Date();
    const lastSweep = doc.last_full_dkim_at ?? null;
    const fullDkimSweep = job.full_dkim_sweep === true || lastSweep === null || now.getTime() - lastSweep.getTime() >= c.PORTFOLIO_FULL_DKIM_SWEEP_INTERVAL_S * 1000;
    // The stored NS names the zone's operator, so even the zone's first question of this scan is
    // charged to the right budget (without it the NS question goes out before the operator is known).
    const resolver = this.d.scanDeps.resolver;
    if (resolver instanceof PoliteResolver && doc.result?.ns) resolver.hintZone(job.domain, doc.result.ns.split(', '));
    const t0 = performance.now();
    const outcome = await (this.d.scanDomain ?? scanDomain)(job.domain, this.d.scanDeps, { fullDkimSweep, knownSelectors: knownSelectors(doc.result?.dkim_selectors) });
    this.m.duration.observe((performance.now() - t0) / 1000);
    const sweptAt = fullDkimSweep ? { fullDkimSweepAt: outcome.observation.scanned_at } : {};
    this.storing++;
    release();
    let stored: StoreScanResult;
    try {
      stored = this.d.storeScan
        ? await this.d.storeScan(this.d.db, job.domain, job.slot, outcome, { intervalS: c.PORTFOLIO_RESCAN_INTERVAL_S })
        : await this.stores.add({ domain: job.domain, slot: job.slot, outcome, ...sweptAt });
    } finally {
      this.storing--;
    }
    if (!stored.stored) return 'unchanged_slot';
    for (const change of stored.changes) this.m.changes.inc({ field: change.field_name });
    // The grouped store sets it in the same transaction; after a replaced store, a crash in between only makes the next scan sweep again.
    if (fullDkimSweep && this.d.storeScan) await corpus.updateOne({ _id: job.domain }, { $set: { last_full_dkim_at: outcome.observation.scanned_at } });
    return 'stored';
  }

  /** A message given up on: its domain waits for its next slot instead of being published again and again. */
  private async skipSlot(job: PortfolioScanMessage): Promise<void> {
    const corpus = this.d.db.collection<CorpusDomainDoc>(COLLECTIONS.portfolioCorpus.name);
    const next = nextDueAt(job.domain, this.d.config.PORTFOLIO_RESCAN_INTERVAL_S, new Date());
    await corpus.updateOne({ _id: job.domain, watchers: { $gt: 0 }, $or: [{ last_slot: null }, { last_slot: { $lt: job.slot } }] }, { $set: { next_scan_at: next } });
  }

  private answer(h: Held, send: (msg: JsMsg) => void): void {
    if (h.released) return;
    h.released = true;
    try {
      send(h.msg);
    } catch (err) {
      this.d.log.warn({ err: (err as Error).message }, 'could not answer a scan message; it comes back after ack_wait');
    }
  }

  private count(outcome: ScanOutcomeLabel): void {
    this.m.scans.inc({ outcome });
  }
}
