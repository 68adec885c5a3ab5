// A scan worker: pulls scan messages from the two PORTFOLIO durables shared by every replica
// (priority first: domains just added), scans each domain, stores the result and acks only then.
// docs/portfolio-scanner.md "Workers and planner".
import { performance } from 'node:perf_hooks';
import type { JsMsg } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Db } from 'mongodb';
import type { Registry } from 'prom-client';
import { COLLECTIONS, CONSUMERS, portfolioScanMessage, type CorpusDomainDoc, type PortfolioScanMessage } from '@dv/contracts';
import { WorkLoop, type Lease, type Logger } from '@dv/runtime';
import { PoliteResolver } from '../politeness/index.ts';
import { scanDomain, type ScanDeps } from '../scan/index.ts';
import { nextDueAt, storeScans, type ScanToStore, type StoreScanResult } from '../store/index.ts';
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
  /** Replaced in tests (a store followed by a crash), wrapping storeScans: scans are stored in groups (Batcher) either way. */
  storeScans?: typeof storeScans;
  /** Longest a pull request stays open (nats.js minimum 1000). */
  pullExpiresMs?: number;
}

interface Held {
  msg: JsMsg;
  /** The message's ack handle; settled once answered, or given back at shutdown. */
  lease: Lease;
  priority: ScanPriority;
  /** Ends the work loop's handler with the scan's own end (or at once, when given back unstarted). */
  finish: (scan: Promise<void>) => void;
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

/** Scan places kept for priority scans: rescans never take them (at least one place is left to rescans). */
function priorityReserve(c: ScanWorkerConfig): number {
  return Math.min(c.PORTFOLIO_SCAN_PRIORITY_RESERVE, c.PORTFOLIO_SCAN_CONCURRENCY - 1);
}

export class ScanWorker {
  private readonly d: ScanWorkerDeps;
  private readonly m: ScanMetrics;
  /** Messages in hand: scanning, or waiting here for a free place (priority ones first). */
  private readonly held = new Set<Held>();
  private readonly waiting: Record<ScanPriority, Held[]> = { priority: [], rescan: [] };
  private readonly loop: WorkLoop<ScanPriority>;
  /** Scans holding a place (reading their document or doing their DNS work). */
  private scanning = 0;
  /** Scans done, waiting for their store. */
  private storing = 0;
  /** Scan places rescans may take: the rest are kept for priority scans. */
  private readonly rescanPlaces: number;
  private stopped = false;
  /** The corpus documents of scans about to start, read together. */
  private readonly reads: Batcher<string, ScanStart | null>;
  /** The scans that finished, stored together. */
  private readonly stores: Batcher<ScanToStore, StoreScanResult>;

  constructor(deps: ScanWorkerDeps) {
    this.d = deps;
    this.m = scanMetrics(deps.registry);
    const grouping = { maxBatch: PORTFOLIO_DEFAULTS.storeBatchMax, maxInFlight: PORTFOLIO_DEFAULTS.storeBatchesInFlight };
    const store = deps.storeScans ?? storeScans;
    this.stores = new Batcher((scans) => store(deps.db, scans, { intervalS: deps.config.PORTFOLIO_RESCAN_INTERVAL_S }), { ...grouping, lingerMs: PORTFOLIO_DEFAULTS.storeBatchLingerMs });
    this.reads = new Batcher(async (domains) => {
      const docs = await deps.db
        .collection<CorpusDomainDoc>(COLLECTIONS.portfolioCorpus.name)
        .find({ _id: { $in: [...new Set(domains)] } }, { projection: SCAN_START_PROJECTION })
        .toArray();
      const byId = new Map(docs.map((d) => [d._id, d as ScanStart]));
      return domains.map((d) => byId.get(d) ?? null);
    }, { ...grouping, lingerMs: PORTFOLIO_DEFAULTS.scanReadLingerMs });
    this.rescanPlaces = deps.config.PORTFOLIO_SCAN_CONCURRENCY - priorityReserve(deps.config);
    this.loop = this.workLoop();
  }

  /** Scans in hand. */
  get inFlight(): number {
    return this.held.size;
  }

  /**
   * The pull side. Each lane keeps one pull request open for what its limit leaves room for,
   * counting every message in hand: the priority lane is never blocked by the rescan lane's long
   * poll. Both may fill at once, so up to 2 x concurrency messages can be waiting or scanning, plus
   * those waiting for their store (at most STORE_BACKLOG x concurrency in hand in all); scans never
   * run more than `concurrency` at once (pump), the rest wait here, priority first. Rescans take at
   * most concurrency - reserve places (the reserve is kept for priority scans). The keep-alive runs
   * at a third of the consumers' ack_wait, so a long scan (full DKIM sweep behind a slow operator
   * budget) is never redelivered.
   */
  private workLoop(): WorkLoop<ScanPriority> {
    const c = this.d.config;
    return new WorkLoop<ScanPriority>({
      nc: this.d.nc,
      log: this.d.log,
      stream: PORTFOLIO_STREAM,
      lanes: [
        { name: 'priority', durable: DURABLES.priority },
        { name: 'rescan', durable: DURABLES.rescan, prefetchShare: RESCAN_PREFETCH },
      ],
      capacity: c.PORTFOLIO_SCAN_CONCURRENCY,
      reserve: priorityReserve(c),
      // Scans waiting for their store no longer count against the limit (they hold no scan place),
      // but what is in hand stays bounded: at most STORE_BACKLOG x concurrency messages.
      // Rescans pulled ahead and waiting for a place do not keep priority messages out.
      inHand: (lane) => this.held.size - this.storing - (lane === 'priority' ? this.waiting.rescan.length : 0),
      headroom: () => STORE_BACKLOG * c.PORTFOLIO_SCAN_CONCURRENCY - this.held.size,
      handle: (msg, lease, lane) => this.begin(msg, lease, lane),
      retryDelayMs: (deliveries) => retryDelayMs(deliveries, c.PORTFOLIO_SCAN_RETRY_BASE_MS, c.PORTFOLIO_SCAN_RETRY_MAX_MS),
      pullExpiresMs: this.d.pullExpiresMs ?? 1_000,
      idleMs: 100,
    });
  }

  /** Reads the consumers (ack_wait for the keep-alive, max_deliver for the give-up) and starts pulling. */
  async start(): Promise<void> {
    await this.loop.start();
  }

  /**
   * Stops pulling, lets the scans in hand finish for up to `drainMs` (each acks as usual), then
   * gives the rest back (nak without delay: another replica takes them at once).
   */
  async stop(drainMs: number): Promise<void> {
    this.stopped = true;
    await this.loop.stop();
    // Not started yet: straight back to the other replicas.
    for (const h of [...this.waiting.priority, ...this.waiting.rescan]) {
      this.answer(h, (lease) => lease.nak());
      this.held.delete(h);
      h.finish(Promise.resolve());
    }
    this.waiting.priority.length = 0;
    this.waiting.rescan.length = 0;
    if (!(await this.loop.idle(drainMs))) this.d.log.warn({ scans: this.held.size }, 'scans not finished within the drain budget; given back');
    this.loop.giveBack();
  }

  /**
   * What a killed process does: stops everything without answering the messages in hand (JetStream
   * redelivers them after ack_wait). For tests of crash recovery.
   */
  async abandon(): Promise<void> {
    this.stopped = true;
    await this.loop.abandon();
  }

  /** Takes a pulled message: it waits for a scan place (priority first); the handler ends with its scan. */
  private begin(msg: JsMsg, lease: Lease, priority: ScanPriority): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const h: Held = { msg, lease, priority, finish: (scan) => void scan.then(resolve, reject) };
      this.held.add(h);
      this.waiting[priority].push(h);
      this.pump();
    });
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
        this.loop.wake();
      };
      h.finish(this.handle(h, h.priority, release).finally(() => {
        release();
        this.held.delete(h);
        this.loop.wake();
      }));
    }
  }

  /**
   * Answers the message: ack once stored (or not needed), term when unreadable or on its last
   * delivery; a failure before that is thrown to the work loop, which naks it with backoff.
   */
  private async handle(h: Held, priority: ScanPriority, release: () => void): Promise<void> {
    let job: PortfolioScanMessage;
    try {
      job = portfolioScanMessage.parse(h.msg.json());
    } catch (err) {
      this.d.log.error({ err: (err as Error).message, priority, seq: h.msg.seq }, 'unreadable scan message; ended');
      this.count('gave_up');
      this.answer(h, (lease) => lease.term());
      return;
    }
    const deliveries = h.msg.info.deliveryCount;
    try {
      const outcome = await this.process(job, deliveries, release);
      if (h.lease.settled) return;
      this.answer(h, (lease) => lease.ack());
      this.count(outcome);
    } catch (err) {
      if (h.lease.settled) return;
      if (!isLastDelivery(deliveries, this.loop.maxDeliver(priority))) {
        const delayMs = retryDelayMs(deliveries, this.d.config.PORTFOLIO_SCAN_RETRY_BASE_MS, this.d.config.PORTFOLIO_SCAN_RETRY_MAX_MS);
        this.d.log.warn({ err: (err as Error).message, domain: job.domain, slot: job.slot, deliveries, delayMs }, 'scan failed; retrying later');
        this.count('failed');
        throw err;
      }
      this.d.log.error({ err: (err as Error).message, domain: job.domain, slot: job.slot, deliveries }, 'scan failed on its last delivery; waiting for the next slot');
      // The domain is moved to its next slot before the message ends and the give-up is counted,
      // so whoever sees either (the queue gauges, a test) sees the domain already waiting.
      await this.skipSlot(job).catch(() => undefined);
      this.answer(h, (lease) => lease.term());
      this.count('gave_up');
    }
  }

  /** `release`: gives the scan place back (called once the DNS work is done). */
  private async process(job: PortfolioScanMessage, deliveries: number, release: () => void): Promise<ScanOutcomeLabel> {
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
      // The full-sweep time is set in the store's own transaction.
      stored = await this.stores.add({ domain: job.domain, slot: job.slot, outcome, ...sweptAt });
    } finally {
      this.storing--;
    }
    if (!stored.stored) return 'unchanged_slot';
    for (const change of stored.changes) this.m.changes.inc({ field: change.field_name });
    return 'stored';
  }

  /** A message given up on: its domain waits for its next slot instead of being published again and again. */
  private async skipSlot(job: PortfolioScanMessage): Promise<void> {
    const corpus = this.d.db.collection<CorpusDomainDoc>(COLLECTIONS.portfolioCorpus.name);
    const next = nextDueAt(job.domain, this.d.config.PORTFOLIO_RESCAN_INTERVAL_S, new Date());
    await corpus.updateOne({ _id: job.domain, watchers: { $gt: 0 }, $or: [{ last_slot: null }, { last_slot: { $lt: job.slot } }] }, { $set: { next_scan_at: next } });
  }

  private answer(h: Held, send: (lease: Lease) => void): void {
    if (h.lease.settled) return;
    try {
      send(h.lease);
    } catch (err) {
      this.d.log.warn({ err: (err as Error).message }, 'could not answer a scan message; it comes back after ack_wait');
    }
  }

  private count(outcome: ScanOutcomeLabel): void {
    this.m.scans.inc({ outcome });
  }
}
