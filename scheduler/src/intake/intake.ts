// Pulls items from the two durable consumers shared by every replica, with the runtime's work loop.
// Single checks go first: their lane may use SINGLE_RESERVE more in-flight room than the list
// lane, and the dispatcher always serves batches holding a single check before list batches.
// The loop keeps every held message alive (+WPI every ACK_PROGRESS_INTERVAL_MS) so a politeness
// wait never reaches ack_wait, and gives back (nak) whatever is still held at stop.
import type { JsMsg } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { WorkLoop, type Lease, type Logger } from '@dv/runtime';

export type IntakePriority = 'single' | 'list';

export interface IntakeOptions {
  nc: NatsConnection;
  log: Logger;
  stream: string;
  singleConsumer: string;
  listConsumer: string;
  fetchBatch: number;
  maxInFlight: number;
  singleReserve: number;
  keepAliveMs: number;
  /** Items currently held by this replica, besides the messages being admitted (counted here). */
  inFlight: () => number;
  /** Takes the message over: acks, releases or hands its lease on; never throws. */
  onMessage: (msg: JsMsg, lease: Lease, priority: IntakePriority) => Promise<void>;
}

export function createIntake(o: IntakeOptions): WorkLoop<IntakePriority> {
  const loop: WorkLoop<IntakePriority> = new WorkLoop<IntakePriority>({
    nc: o.nc,
    log: o.log,
    stream: o.stream,
    lanes: [
      { name: 'single', durable: o.singleConsumer },
      { name: 'list', durable: o.listConsumer },
    ],
    capacity: o.maxInFlight + o.singleReserve,
    reserve: o.singleReserve,
    inHand: () => o.inFlight() + loop.handling,
    handle: o.onMessage,
    keepAliveMs: o.keepAliveMs,
    fetchBatch: o.fetchBatch,
    idleMs: 20,
  });
  return loop;
}
