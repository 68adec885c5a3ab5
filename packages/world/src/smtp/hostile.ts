// Hosts that do not speak SMTP at all, for probe robustness tests. ("midReplyDisconnect" and
// "badTls" speak SMTP until one point, so they live in the normal session.)
import type net from 'node:net';
import { LineSplitter } from './lines.ts';
import type { SessionContext } from './session.ts';
import type { SmtpSessionLog } from './stats.ts';

// Every byte value, in a fixed order, so a failing test sees the same input each run.
export const GARBAGE = Buffer.from(Array.from({ length: 256 }, (_, i) => (i * 167 + 13) & 0xff));

export const FLOOD_BYTES = 4 * 1024 * 1024;
const FLOOD_LINE = `220-${'flood '.repeat(12).trim()}\r\n`;
const FLOOD_CHUNK = Buffer.from(FLOOD_LINE.repeat(Math.floor(65_536 / FLOOD_LINE.length)));

export type HostileFlavour = 'garbage' | 'flood' | 'silent';

export class HostileSession {
  readonly log: SmtpSessionLog;
  private readonly socket: net.Socket;
  private readonly ctx: SessionContext;
  private readonly flavour: HostileFlavour;
  private readonly splitter = new LineSplitter();
  private closed = false;

  constructor(socket: net.Socket, ctx: SessionContext, flavour: HostileFlavour) {
    this.socket = socket;
    this.ctx = ctx;
    this.flavour = flavour;
    this.log = ctx.recorder.open(ctx.clientIp, socket.remotePort ?? 0);
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      this.closed = true;
      ctx.recorder.close(this.log);
    });
  }

  async start(): Promise<void> {
    if (!(await this.ctx.timers.sleep(this.ctx.replyDelayMs)) || this.closed) return;
    if (this.flavour === 'garbage') this.send(GARBAGE, `<garbage ${GARBAGE.length} bytes>`);
    if (this.flavour === 'flood') await this.flood();
  }

  destroy(): void {
    this.socket.destroy();
  }

  private receive(chunk: Buffer): void {
    for (const line of this.splitter.push(chunk).lines) this.ctx.recorder.command(this.log, line);
    // Whatever the client says, a garbage host answers with more garbage.
    if (this.flavour === 'garbage' && !this.closed) this.send(GARBAGE, `<garbage ${GARBAGE.length} bytes>`);
  }

  private send(bytes: Buffer, logText: string): void {
    this.ctx.recorder.reply(this.log, logText);
    this.socket.write(bytes);
  }

  // Megabytes of "220-" continuation lines with no final line, honouring backpressure so the host
  // itself does not buffer the whole flood; then FIN.
  private async flood(): Promise<void> {
    this.ctx.recorder.reply(this.log, `<flood of ${FLOOD_BYTES} bytes of 220- continuation lines>`);
    let sent = 0;
    while (sent < FLOOD_BYTES && !this.closed) {
      const flushed = this.socket.write(FLOOD_CHUNK);
      sent += FLOOD_CHUNK.length;
      if (!flushed) {
        await new Promise<void>((resolve) => {
          const done = (): void => {
            this.socket.off('drain', done);
            this.socket.off('close', done);
            resolve();
          };
          this.socket.on('drain', done);
          this.socket.on('close', done);
        });
      }
    }
    if (!this.closed) this.socket.end();
  }
}
