// One JetStream pull-consumer work loop, shared by every service that works messages from durable
// consumers (scheduler intake, portfolio scan workers). Contract:
// - Lanes are durables of one stream, in priority order; each keeps one pull request open for the
//   room its limit leaves. Priority reserve: the first lane may hold `capacity` messages, every
//   other lane `capacity - reserve`, so low-priority work never takes the reserved places.
//   What counts as held is the caller's (`inHand`), plus an optional overall `headroom`. Each
//   lane's open pull counts what was in hand when it went out, so together the lanes may briefly
//   hold more than `capacity`; a lower lane never holds more than its own limit.
// - Every message goes to `handle` with a Lease (its ack handle). The handler settles the lease or
//   hands it off (its owner settles it later). A handler that throws or rejects with its lease
//   unsettled gets a nak delayed by `retryDelayMs(deliveryCount)` (default 1 s): backoff, then
//   redelivery. The handler logs why it failed (it knows what the message was about).
// - Keep-alive: every unsettled lease gets +WPI every `keepAliveMs` (default a third of the
//   lanes' shortest ack_wait), so slow work is never redelivered elsewhere meanwhile.
// - A failed pull (NATS restarting, consumer missing) is tried again after `errorBackoffMs`.
// - stop(): nothing is pulled once it returns; a message arriving after stop began is nak'ed at
//   once. idle(ms) waits for the handlers; giveBack() naks (no delay: another consumer takes them
//   at once, not after ack_wait) every lease still unsettled; abandon() answers nothing (a crash).
import { jetstream, type Consumer, type ConsumerMessages, type JsMsg } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { Lease } from './lease.ts';
import type { Logger } from './logger.ts';

export interface WorkLane<L extends string> {
  name: L;
  durable: string;
  /** Messages pulled ahead of the lane's limit, as a share of it; a pull then waits for at least that many places. */
  prefetchShare?: number;
}

export interface WorkLoopOptions<L extends string> {
  nc: NatsConnection;
  log: Logger;
  stream: string;
  /** Highest priority first. */
  lanes: readonly WorkLane<L>[];
  /** Messages the first lane may hold. */
  capacity: number;
  /** Of `capacity`, the places only the first lane may take. */
  reserve?: number;
  /** Messages counted against `lane`'s limit (Infinity: pull nothing). */
  inHand: (lane: L) => number;
  /** More messages this process may take at all, whatever the lane (default unbounded). */
  headroom?: () => number;
  handle: (msg: JsMsg, lease: Lease, lane: L) => void | Promise<void>;
  /** Delay of the nak after a failed handler, by the delivery (1-based) that failed. */
  retryDelayMs?: (deliveries: number) => number;
  keepAliveMs?: number;
  fetchBatch?: number;
  /** Longest a pull request stays open (nats.js minimum 1000). */
  pullExpiresMs?: number;
  /** Wait before looking again when a lane has no room (wake() cuts it short). */
  idleMs?: number;
  errorBackoffMs?: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The message's ack subject. nats.js's JsMsg implementation exposes it though its type does not;
 * a client version that hides it must fail loudly here, not leave every message unanswered.
 */
function replyOf(msg: JsMsg): string {
  const reply = (msg as JsMsg & { reply?: unknown }).reply;
  if (typeof reply !== 'string' || reply === '') throw new Error('JetStream message without a reply subject: cannot answer it');
  return reply;
}

export class WorkLoop<L extends string> {
  private readonly o: WorkLoopOptions<L>;
  private readonly leases = new Set<Lease>();
  private readonly running = new Set<Promise<void>>();
  private readonly pulls = new Set<ConsumerMessages>();
  private readonly waiters = new Set<() => void>();
  private readonly consumers = new Map<L, Consumer>();
  private readonly maxDeliveries = new Map<L, number>();
  private loops: Promise<void>[] = [];
  private keepAlive: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(opts: WorkLoopOptions<L>) {
    this.o = opts;
  }

  /** Leases not yet settled (being worked or handed off). */
  get held(): number {
    return this.leases.size;
  }

  /** Handlers still running. */
  get handling(): number {
    return this.running.size;
  }

  /** The lane's max_deliver as read at start (-1: unlimited, or not read because `keepAliveMs` was given). */
  maxDeliver(lane: L): number {
    return this.maxDeliveries.get(lane) ?? -1;
  }

  /**
   * Starts the lanes. Without `keepAliveMs` it first reads each consumer (ack_wait, max_deliver)
   * and throws when one is missing; with it, consumers are looked up by the lanes, retrying.
   */
  async start(): Promise<void> {
    let keepAliveMs = this.o.keepAliveMs;
    if (keepAliveMs === undefined) {
      let ackWaitMs = Infinity;
      for (const lane of this.o.lanes) {
        const consumer = await jetstream(this.o.nc).consumers.get(this.o.stream, lane.durable);
        const info = await consumer.info(true);
        this.consumers.set(lane.name, consumer);
        this.maxDeliveries.set(lane.name, info.config.max_deliver ?? -1);
        ackWaitMs = Math.min(ackWaitMs, (info.config.ack_wait ?? 30e9) / 1e6);
      }
      keepAliveMs = Math.max(100, ackWaitMs / 3);
    }
    this.keepAlive = setInterval(() => this.touch(), keepAliveMs);
    this.keepAlive.unref();
    const reserve = Math.max(0, this.o.reserve ?? 0);
    this.loops = this.o.lanes.map((lane, i) => this.pullLoop(lane, i === 0 ? this.o.capacity : this.o.capacity - reserve));
  }

  /** Looks for room again now (something held was let go). */
  wake(): void {
    for (const w of [...this.waiters]) w();
  }

  /** Stops pulling; a pull request still open is cut, so nothing new arrives after this returns. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const p of this.pulls) p.stop();
    this.wake();
    await Promise.all(this.loops);
  }

  /** True once every handler has returned, false when `budgetMs` ran out first. */
  async idle(budgetMs = Infinity): Promise<boolean> {
    const all = Promise.allSettled([...this.running]).then(() => true);
    if (budgetMs === Infinity) return all;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<boolean>((r) => (timer = setTimeout(() => r(false), budgetMs)));
    const inTime = await Promise.race([all, late]);
    clearTimeout(timer);
    return inTime;
  }

  /** Gives back every unsettled lease (nak without delay) and ends the keep-alive. */
  giveBack(): void {
    for (const lease of [...this.leases]) this.answer(lease, () => lease.nak());
    this.clearKeepAlive();
  }

  /** What a killed process does: stops without answering anything (redelivered after ack_wait). */
  async abandon(): Promise<void> {
    this.stopped = true;
    for (const lease of [...this.leases]) lease.abandon();
    for (const p of this.pulls) p.stop();
    this.wake();
    this.clearKeepAlive();
    await Promise.all(this.loops);
  }

  private clearKeepAlive(): void {
    if (this.keepAlive) clearInterval(this.keepAlive);
    this.keepAlive = null;
  }

  private touch(): void {
    for (const lease of this.leases) this.answer(lease, () => lease.working());
  }

  private answer(lease: Lease, send: () => void): void {
    try {
      send();
    } catch (err) {
      // Connection closed: the message comes back to someone after ack_wait.
      this.o.log.debug({ err: (err as Error).message }, 'could not answer a message');
    }
  }

  /** Messages the lane may pull now, or 0 (prefetch: a pull waits until it may carry that many). */
  private room(lane: WorkLane<L>, limit: number): number {
    const prefetch = Math.floor(limit * (lane.prefetchShare ?? 0));
    const headroom = this.o.headroom?.() ?? Infinity;
    const room = Math.min(limit + prefetch - this.o.inHand(lane.name), headroom);
    if (room <= 0 || room < Math.min(prefetch, headroom)) return 0;
    return Math.min(room, this.o.fetchBatch ?? Infinity);
  }

  private async pullLoop(lane: WorkLane<L>, limit: number): Promise<void> {
    while (!this.stopped) {
      const room = this.room(lane, limit);
      if (room === 0) {
        await this.rest(this.o.idleMs ?? 100);
        continue;
      }
      try {
        await this.pull(lane, room);
      } catch (err) {
        if (this.stopped) break;
        this.o.log.warn({ err: (err as Error).message, priority: lane.name }, 'pull failed; retrying');
        this.consumers.delete(lane.name);
        await sleep(this.o.errorBackoffMs ?? 500);
      }
    }
  }

  private async pull(lane: WorkLane<L>, room: number): Promise<void> {
    let consumer = this.consumers.get(lane.name);
    if (!consumer) {
      consumer = await jetstream(this.o.nc).consumers.get(this.o.stream, lane.durable);
      this.consumers.set(lane.name, consumer);
    }
    const msgs = await consumer.fetch({ max_messages: room, expires: this.o.pullExpiresMs ?? 1_000 });
    this.pulls.add(msgs);
    try {
      for await (const msg of msgs) {
        const lease = new Lease(this.o.nc, replyOf(msg), (l) => this.leases.delete(l));
        // Pulled after stop began: give it straight back.
        if (this.stopped) this.answer(lease, () => lease.nak());
        else this.run(msg, lease, lane.name);
      }
    } finally {
      this.pulls.delete(msgs);
    }
  }

  private run(msg: JsMsg, lease: Lease, lane: L): void {
    this.leases.add(lease);
    let p: Promise<void>;
    try {
      p = Promise.resolve(this.o.handle(msg, lease, lane));
    } catch (err) {
      p = Promise.reject(err as Error);
    }
    const deliveries = msg.info.deliveryCount;
    const done: Promise<void> = p
      .catch((err: unknown) => {
        if (lease.settled) return;
        const delayMs = this.o.retryDelayMs?.(deliveries) ?? 1_000;
        this.o.log.debug({ err: (err as Error).message, priority: lane, deliveries, delayMs }, 'handler failed; message retried later');
        this.answer(lease, () => lease.nak(delayMs));
      })
      .finally(() => this.running.delete(done));
    this.running.add(done);
  }

  private rest(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.waiters.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.waiters.add(wake);
    });
  }
}
