// Coalesces finished items for a few milliseconds so one MongoDB transaction stores many of them
// (a 20-address session ends 20 items at once), then acks their messages. Ack strictly after the
// store: a crash in between redelivers, and the store finds the items already done.
import type { Logger } from '@dv/runtime';
import type { ItemEvidence } from '@dv/contracts';
import type { VerificationResult } from '@dv/verdict';
import { ackHeld, releaseHeld, type HeldItem } from '../intake/held-item.ts';
import type { FinishedItem, ResultStore } from './store.ts';

interface Pending {
  held: HeldItem;
  finished: FinishedItem;
}

export class Finisher {
  private queue: Pending[] = [];
  /** Items in the flushes now running. */
  private flushing = 0;
  private timer: NodeJS.Timeout | null = null;
  private readonly active = new Set<Promise<void>>();
  private readonly store: ResultStore;
  private readonly log: Logger;
  private readonly onFinished: (n: number) => void;
  private readonly coalesceMs: number;
  private readonly maxBatch: number;
  private readonly parallel: number;

  constructor(opts: { store: ResultStore; log: Logger; onFinished: (n: number) => void; coalesceMs?: number; maxBatch?: number; parallel?: number }) {
    this.store = opts.store;
    this.log = opts.log;
    this.onFinished = opts.onFinished;
    this.coalesceMs = opts.coalesceMs ?? 10;
    this.maxBatch = opts.maxBatch ?? 1_000;
    this.parallel = Math.max(1, opts.parallel ?? 1);
  }

  finish(held: HeldItem, result: VerificationResult, attempts: number, evidence?: ItemEvidence): void {
    this.queue.push({ held, finished: { itemId: held.item._id, jobId: held.item.job_id, accountId: held.item.account_id, mode: held.mode, result, attempts, evidence } });
    // Its outcome is decided: what the live path needed is not kept through the store backlog.
    held.syntax = undefined;
    held.lists = undefined;
    if (this.queue.length >= this.maxBatch) this.flushSoon(0);
    else this.flushSoon(this.coalesceMs);
  }

  private flushSoon(ms: number): void {
    if (this.timer && ms > 0) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.kick();
    }, ms);
  }

  /**
   * Starts flushes while fewer than `parallel` run. While they all run, finished items pile up,
   * so the next flush stores a bigger batch: per item, one bulk write of many is far cheaper
   * than many small ones. Several at once overlap their round trips to MongoDB.
   */
  private kick(): void {
    while (this.active.size < this.parallel && this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatch);
      this.flushing += batch.length;
      const run = this.flushBatch(batch).finally(() => {
        this.flushing -= batch.length;
        this.active.delete(run);
        this.kick();
      });
      this.active.add(run);
    }
  }

  private async flushBatch(batch: Pending[]): Promise<void> {
    try {
      const t0 = Date.now();
      await this.store.store(batch.map((p) => p.finished));
      this.log.debug({ items: batch.length, ms: Date.now() - t0 }, 'stored');
      for (const p of batch) ackHeld(p.held);
      this.onFinished(batch.length);
    } catch (err) {
      // MongoDB unreachable or a transaction gave up: hand the messages back; a redelivery
      // recomputes (or re-reads) the outcome and the store stays idempotent.
      this.log.error({ err, items: batch.length }, 'storing results failed; items released for redelivery');
      for (const p of batch) releaseHeld(p.held, 1_000);
    }
  }

  /** Stores everything queued so far and waits for every flush running. */
  async flush(): Promise<void> {
    while (this.queue.length > 0 || this.active.size > 0) {
      this.kick();
      await Promise.allSettled([...this.active]);
    }
  }

  async drain(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    await this.flush();
  }

  /** Finished items not yet stored and acked (waiting or in a running flush). */
  get backlog(): number {
    return this.queue.length + this.flushing;
  }
}
