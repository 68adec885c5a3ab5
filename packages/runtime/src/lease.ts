// The ack handle of one JetStream message, answering through the message's reply (ack) subject
// exactly as JsMsg does (`msg.respond(payload)` on the same connection): +ACK, -NAK (with
// `{"delay": ns}`), +TERM, +WPI. It keeps no JsMsg: a message's payload is a view into the socket
// read chunk it arrived in, so holding the JsMsg for the seconds or minutes work takes would pin
// that whole chunk (and its headers and parsed subjects) in the old generation.
import type { NatsConnection } from '@nats-io/transport-node';

const ACK = Uint8Array.of(43, 65, 67, 75); // +ACK
const NAK = Uint8Array.of(45, 78, 65, 75); // -NAK
const WPI = Uint8Array.of(43, 87, 80, 73); // +WPI
const TERM = Uint8Array.of(43, 84, 69, 82, 77); // +TERM

/** Only the first final answer (ack, nak, term) is sent; +WPI may repeat until then. */
export class Lease {
  private done = false;
  private readonly nc: Pick<NatsConnection, 'publish'>;
  private readonly onSettle: ((lease: Lease) => void) | undefined;
  readonly reply: string;

  constructor(nc: Pick<NatsConnection, 'publish'>, reply: string, onSettle?: (lease: Lease) => void) {
    this.nc = nc;
    this.reply = reply;
    this.onSettle = onSettle;
  }

  /** Answered (or abandoned): nothing more is sent for it. */
  get settled(): boolean {
    return this.done;
  }

  ack(): void {
    this.send(ACK, true);
  }

  /** Redelivered after `delayMs` (at once without one). */
  nak(delayMs?: number): void {
    this.send(delayMs ? new TextEncoder().encode(`-NAK ${JSON.stringify({ delay: delayMs * 1_000_000 })}`) : NAK, true);
  }

  /** Never redelivered. */
  term(reason = ''): void {
    this.send(reason ? new TextEncoder().encode(`+TERM ${reason}`) : TERM, true);
  }

  /** In progress: the server restarts the message's ack_wait. */
  working(): void {
    this.send(WPI, false);
  }

  /** Settled without sending anything, as a killed process leaves it: redelivered after ack_wait. */
  abandon(): void {
    if (this.done) return;
    this.done = true;
    this.onSettle?.(this);
  }

  private send(payload: Uint8Array, final: boolean): void {
    if (this.done) return;
    if (final) {
      this.done = true;
      this.onSettle?.(this);
    }
    if (this.reply) this.nc.publish(this.reply, payload);
  }
}
