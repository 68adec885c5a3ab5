// One item held by this replica: its un-acked JetStream message plus what the pipeline learned.
// The message is acked only once the item's outcome is durable (stored result or parked retry);
// released (nak) on shutdown so another replica takes it; kept alive with working() meanwhile.
import type { JsMsg } from '@nats-io/jetstream';
import type { JobDoc, JobItemDoc, VerifyItemMessage } from '@dv/contracts';
import type { ListSignals, SyntaxOk } from '@dv/verdict';

export interface HeldItem {
  msg: JsMsg;
  message: VerifyItemMessage;
  item: JobItemDoc;
  job: JobDoc;
  priority: 'single' | 'list';
  receivedAtMs: number;
  syntax?: SyntaxOk;
  lists?: ListSignals;
  /** Sessions this item took part in during this hold that ended without a reply for it (busy node, lost node). */
  redispatches: number;
  settled: boolean;
  /** Called once when the message is acked or released (in-flight bookkeeping). */
  onSettle?: () => void;
}

/** Acks once; later calls are no-ops (a replayed ack would be harmless, but noisy). */
export function ackHeld(h: HeldItem): void {
  if (h.settled) return;
  h.settled = true;
  h.onSettle?.();
  try {
    h.msg.ack();
  } catch {
    // Connection down: the message is redelivered later and the item is found already done.
  }
}

/** Gives the message back for redelivery (another replica, or this one later). */
export function releaseHeld(h: HeldItem, delayMs = 0): void {
  if (h.settled) return;
  h.settled = true;
  h.onSettle?.();
  try {
    h.msg.nak(delayMs);
  } catch {
    // Connection down: ack_wait expiry redelivers it anyway.
  }
}

export function touchHeld(h: HeldItem): void {
  if (h.settled) return;
  try {
    h.msg.working();
  } catch {
    // ignore: a missed progress ack at worst means a redelivery, which is idempotent.
  }
}
