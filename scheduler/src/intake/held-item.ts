// One item held by this replica: the handle to ack its JetStream message plus the few facts the
// pipeline needs. The message is acked only once the item's outcome is durable (stored result or
// parked retry); released (nak) on shutdown so another replica takes it; kept alive with +WPI
// meanwhile by the intake's work loop (@dv/runtime WorkLoop, one interval, not a timer per item).
//
// Memory (docs/scheduler.md, "Benchmark"): a replica holds up to MAX_ITEMS_IN_FLIGHT +
// STORE_BACKLOG_MAX items for seconds each, so everything held here is promoted to V8's old
// generation. Hence no JsMsg (the Lease answers through the ack subject alone, see
// @dv/runtime lease.ts), no item document (meta, result, dates) and no job document: only the
// ack handle and the fields used later.
import type { JobItemDoc } from '@dv/contracts';
import type { Lease } from '@dv/runtime';
import type { ListSignals, SyntaxOk } from '@dv/verdict';

/** The item fields the scheduler reads or updates while it holds the item (a projection of JobItemDoc). */
export type HeldFacts = Pick<JobItemDoc, '_id' | 'job_id' | 'account_id' | 'email' | 'ref' | 'attempts' | 'source_ip' | 'first_attempt_at' | 'probe_node'>;

export interface HeldItem {
  msg: Lease;
  item: HeldFacts;
  mode: 'live' | 'sandbox';
  priority: 'single' | 'list';
  receivedAtMs: number;
  /** The HTTP request that submitted the item (its message's X-Request-Id), named on log lines about it and sent to the probe node. */
  requestId?: string;
  syntax?: SyntaxOk;
  lists?: ListSignals;
  /** Sessions this item took part in during this hold that ended without a reply for it (busy node, lost node). */
  redispatches: number;
  /** Of those, sessions cut by a harvest defence before answering it (harvest-cut.ts); absent = none. */
  cutRedispatches?: number;
  /** Of those, sessions lost (node timed out, no responders, gone), bounded by PROBE_REDISPATCH_MAX (poison-result.ts); absent = none. */
  lostSessions?: number;
  settled: boolean;
  /** The set of held items this one is in (in-flight bookkeeping): left when acked or released. */
  owner?: Set<HeldItem>;
}

function settle(h: HeldItem): boolean {
  if (h.settled) return false;
  h.settled = true;
  h.owner?.delete(h);
  return true;
}

/** Acks once; later calls are no-ops (a replayed ack would be harmless, but noisy). */
export function ackHeld(h: HeldItem): void {
  if (!settle(h)) return;
  try {
    h.msg.ack();
  } catch {
    // Connection down: the message is redelivered later and the item is found already done.
  }
}

/** Gives the message back for redelivery (another replica, or this one later). */
export function releaseHeld(h: HeldItem, delayMs = 0): void {
  if (!settle(h)) return;
  try {
    h.msg.nak(delayMs);
  } catch {
    // Connection down: ack_wait expiry redelivers it anyway.
  }
}
