// The planner's decisions, apart from its I/O (planner.ts reads the due domains and the stream,
// publishes and marks): what one tick does with each due domain, and the tick's time bounds.
import type { CorpusDomainDoc, PortfolioScanMessage } from '@dv/contracts';
import { nextDueAt, slotOf } from '../store/index.ts';
import { scanMessageId } from '../worker/request.ts';

export type DueDoc = Pick<CorpusDomainDoc, '_id' | 'next_scan_at' | 'last_slot' | 'planned_at' | 'planned_tick' | 'last_full_dkim_at'> & {
  result?: Pick<NonNullable<CorpusDomainDoc['result']>, 'dkim_selectors' | 'ns'> | null;
};

/**
 * What a tick does with one due domain:
 * - `advance`: its scan of this slot is already stored; its due time moves to the next slot
 *   (a compare-and-set on `readDueAt`, the due time read, so a store that just moved it on wins);
 * - `publish`: a scan message. A `republish` (published earlier in this slot and not stored
 *   since) names `queuedSeq` when the stream sequence of that message is known: the planner
 *   publishes only once that message is gone from the stream, else leaves the domain waiting.
 */
export type DueAction =
  | { kind: 'advance'; domain: string; readDueAt: DueDoc['next_scan_at']; nextScanAt: Date }
  | { kind: 'publish'; msg: PortfolioScanMessage; queuedSeq?: number };

/** The decision for each due domain, in order; `sequences` are the planned messages' stream sequences by domain. */
export function planTick(due: readonly DueDoc[], now: Date, intervalS: number, sequences: ReadonlyMap<string, number>): DueAction[] {
  return due.map((doc): DueAction => {
    const slot = slotOf(doc._id, now, intervalS);
    if (doc.last_slot !== null && doc.last_slot >= slot) {
      return { kind: 'advance', domain: doc._id, readDueAt: doc.next_scan_at, nextScanAt: nextDueAt(doc._id, intervalS, now) };
    }
    const start = { last_slot: doc.last_slot, last_full_dkim_at: doc.last_full_dkim_at?.getTime() ?? null, dkim_selectors: doc.result?.dkim_selectors ?? null, ns: doc.result?.ns ?? null };
    if (doc.planned_at && slotOf(doc._id, doc.planned_at, intervalS) === slot) {
      const seq = sequences.get(doc._id);
      return { kind: 'publish', msg: { domain: doc._id, slot, reason: 'republish', start }, ...(seq !== undefined ? { queuedSeq: seq } : {}) };
    }
    return { kind: 'publish', msg: { domain: doc._id, slot, reason: 'due', start } };
  });
}

export interface TickWindow {
  /** Domains due at or before this are planned (PORTFOLIO_PLAN_DELAY_MS behind now). */
  dueBy: Date;
  /** How long a planned domain waits for its scan before the planner looks for its message again. */
  graceMs: number;
  /** The due time a planned (or still queued) domain is given: now + grace. */
  later: Date;
}

export function tickWindow(config: { PORTFOLIO_PLAN_GRACE_S: number; PORTFOLIO_RESCAN_INTERVAL_S: number; PORTFOLIO_PLAN_DELAY_MS: number }, now: Date): TickWindow {
  const graceMs = Math.min(config.PORTFOLIO_PLAN_GRACE_S * 1000, (config.PORTFOLIO_RESCAN_INTERVAL_S * 1000) / 2);
  return { dueBy: new Date(now.getTime() - config.PORTFOLIO_PLAN_DELAY_MS), graceMs, later: new Date(now.getTime() + graceMs) };
}

/** The message id of a planned scan: a republish follows a message known to be gone, so it gets an id of its own. */
export function planMessageId(msg: PortfolioScanMessage, now: Date): string {
  // Else JetStream would drop it as a duplicate while the first id is inside the duplicate window.
  return msg.reason === 'republish' ? `${scanMessageId(msg.domain, msg.slot)}:r${now.getTime()}` : scanMessageId(msg.domain, msg.slot);
}
