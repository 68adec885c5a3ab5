// Pulls items from the two durable consumers shared by every replica. Single checks go first:
// their loop may use SINGLE_RESERVE more in-flight room than the list loop, and the dispatcher
// always serves batches holding a single check before list batches.
import { jetstream, type Consumer, type JsMsg } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Logger } from '@dv/runtime';

export interface IntakeOptions {
  nc: NatsConnection;
  log: Logger;
  stream: string;
  singleConsumer: string;
  listConsumer: string;
  fetchBatch: number;
  maxInFlight: number;
  singleReserve: number;
  /** Items currently held by this replica. */
  inFlight: () => number;
  onMessage: (msg: JsMsg, priority: 'single' | 'list') => void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class Intake {
  private stopped = false;
  private readonly loops: Promise<void>[] = [];
  private readonly o: IntakeOptions;
  private readonly active = new Set<{ stop: () => void }>();

  constructor(opts: IntakeOptions) {
    this.o = opts;
  }

  start(): void {
    this.loops.push(this.loop('single', this.o.singleConsumer, this.o.maxInFlight + this.o.singleReserve));
    this.loops.push(this.loop('list', this.o.listConsumer, this.o.maxInFlight));
  }

  /** Stops pulling; a pull request still open is cut so nothing new arrives after this returns. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const a of this.active) a.stop();
    await Promise.all(this.loops);
  }

  private async loop(priority: 'single' | 'list', durable: string, limit: number): Promise<void> {
    let consumer: Consumer | null = null;
    while (!this.stopped) {
      const room = limit - this.o.inFlight();
      if (room <= 0) {
        await sleep(20);
        continue;
      }
      try {
        consumer ??= await jetstream(this.o.nc).consumers.get(this.o.stream, durable);
        const msgs = await consumer.fetch({ max_messages: Math.min(room, this.o.fetchBatch), expires: 1_000 });
        this.active.add(msgs);
        try {
          for await (const m of msgs) {
            if (this.stopped) {
              // Pulled after stop began: give it straight back.
              m.nak();
              continue;
            }
            this.o.onMessage(m, priority);
          }
        } finally {
          this.active.delete(msgs);
        }
      } catch (err) {
        if (this.stopped) break;
        // NATS restarting or the consumer briefly missing: back off and pull again.
        this.o.log.warn({ err: (err as Error).message, priority }, 'pull failed; retrying');
        consumer = null;
        await sleep(500);
      }
    }
  }
}
