// One SMTP session of a scripted host: reads command lines, answers them one at a time after the
// scripted delay, and misbehaves exactly where the host's behaviour says.
import type net from 'node:net';
import tls from 'node:tls';
import type { DropPoint, SmtpHostSpec } from '../schema.ts';
import type { Timers } from '../timers.ts';
import { LineSplitter } from './lines.ts';
import type { HostPolicy } from './policy.ts';
import { REPLIES, ehloLines, greeting } from './replies.ts';
import type { SmtpSessionLog, StatsRecorder } from './stats.ts';

export interface SessionContext {
  spec: SmtpHostSpec;
  policy: HostPolicy;
  recorder: StatsRecorder;
  timers: Timers;
  // World latency + host latency + tarpit: the wait before every reply, greeting included.
  replyDelayMs: number;
  tlsContext: () => Promise<tls.SecureContext>;
  clientIp: string;
}

// Bytes that are not a TLS record, sent where a ServerHello should be ("badTls").
export const NOT_TLS = Buffer.from('\x15\x03\x03\x00\x02\x02\x28this is not a TLS handshake\r\n', 'latin1');

const DROP_AT: Readonly<Record<string, DropPoint>> = { EHLO: 'ehlo', HELO: 'ehlo', MAIL: 'mail', RCPT: 'rcpt' };

export class SmtpSession {
  readonly log: SmtpSessionLog;
  private readonly raw: net.Socket;
  private socket: net.Socket;
  private readonly ctx: SessionContext;
  private readonly splitter = new LineSplitter();
  private readonly queue: string[] = [];
  private busy = true;
  private closed = false;
  private greeted = false;
  private secure = false;
  private mailFrom: string | undefined;
  private rcptCount = 0;
  private limitAtMail = false;
  private readonly onData = (chunk: Buffer): void => this.receive(chunk);

  constructor(raw: net.Socket, ctx: SessionContext) {
    this.raw = raw;
    this.socket = raw;
    this.ctx = ctx;
    this.log = ctx.recorder.open(ctx.clientIp, raw.remotePort ?? 0);
    raw.on('data', this.onData);
    raw.on('close', () => this.finish());
    raw.on('error', () => undefined);
  }

  async start(): Promise<void> {
    const verdict = this.ctx.policy.onConnect(this.ctx.clientIp);
    if (verdict.refusal !== undefined) {
      await this.reply(verdict.refusal);
      this.end();
      return;
    }
    this.limitAtMail = verdict.limitAtMail;
    await this.reply(greeting(this.ctx.spec.name, this.ctx.spec.banner));
    if (this.behaviour.dropAfter === 'greeting') {
      // FIN rather than RST here: a reset racing the greeting can reach the client before the greeting.
      this.end();
      return;
    }
    this.busy = false;
    await this.pump();
  }

  destroy(): void {
    this.socket.destroy();
    this.raw.destroy();
  }

  private get behaviour(): SmtpHostSpec['behaviour'] {
    return this.ctx.spec.behaviour;
  }

  private receive(chunk: Buffer): void {
    const { lines, overflow } = this.splitter.push(chunk);
    for (const line of lines) {
      this.ctx.recorder.command(this.log, line);
      this.queue.push(line);
    }
    if (overflow) {
      this.splitter.clear();
      this.queue.length = 0;
      void this.reply(REPLIES.lineTooLong).then(() => this.end());
      return;
    }
    if (!this.busy) void this.pump();
  }

  private async pump(): Promise<void> {
    this.busy = true;
    while (!this.closed && this.queue.length > 0) {
      await this.handle(this.queue.shift() ?? '');
    }
    this.busy = false;
  }

  private async handle(line: string): Promise<void> {
    const verb = (line.match(/^\S*/)?.[0] ?? '').toUpperCase();
    const hardLimit = this.behaviour.hardErrorLimit;
    if (hardLimit !== undefined && this.log.errors >= hardLimit) {
      // As Postfix: checked before each command, so the command is never answered; RSET does not help.
      await this.reply(REPLIES.tooManyErrors(this.ctx.spec.name));
      this.end();
      return;
    }
    if (this.behaviour.dropAfter !== undefined && DROP_AT[verb] === this.behaviour.dropAfter) {
      this.abort();
      return;
    }
    switch (verb) {
      case 'EHLO':
      case 'HELO':
        return this.hello(verb);
      case 'STARTTLS':
        return this.startTls();
      case 'MAIL':
        return this.mail(line);
      case 'RCPT':
        return this.rcpt(line);
      case 'DATA':
      case 'BDAT':
        return this.reply(this.greeted ? REPLIES.dataRefused : REPLIES.helloFirst);
      case 'RSET':
        this.mailFrom = undefined;
        return this.reply(REPLIES.ok);
      case 'NOOP':
        return this.reply(REPLIES.ok);
      case 'QUIT':
        // The session ends by protocol here: a client that waits for this 221 before it dials again
        // is as polite as an MTA can be, so the concurrency count drops now, not a tick later when
        // the socket's close event comes (which a client reconnecting at once could overtake).
        this.ctx.recorder.close(this.log);
        await this.reply(REPLIES.bye);
        this.end();
        return;
      case 'VRFY':
        return this.reply(REPLIES.vrfyDisabled);
      case 'AUTH':
        return this.reply(REPLIES.authDisabled);
      default:
        return this.reply(REPLIES.notRecognized);
    }
  }

  private async hello(verb: string): Promise<void> {
    this.greeted = true;
    this.mailFrom = undefined;
    const lines =
      verb === 'HELO'
        ? [`250 ${this.ctx.spec.name}`]
        : ehloLines({ hostName: this.ctx.spec.name, pipelining: this.behaviour.pipelining, starttls: this.offersTls() && !this.secure });
    if (this.behaviour.hostile === 'midReplyDisconnect') {
      // Half of the reply, cut inside a line, then FIN: the client must not wait for the rest.
      const text = `${lines.slice(0, -1).join('\r\n')}\r\n${lines[lines.length - 1]?.slice(0, 6) ?? ''}`;
      this.ctx.recorder.reply(this.log, text);
      this.socket.end(text);
      this.closed = true;
      return;
    }
    return this.reply(lines);
  }

  private offersTls(): boolean {
    return this.behaviour.starttls || this.behaviour.requireStartTls || this.behaviour.hostile === 'badTls';
  }

  private async startTls(): Promise<void> {
    if (this.secure) return this.reply(REPLIES.tlsActive);
    if (!this.offersTls()) return this.reply(REPLIES.notImplemented);
    if (this.behaviour.hostile === 'badTls') {
      await this.reply(REPLIES.startTlsReady);
      if (this.closed) return;
      this.ctx.recorder.reply(this.log, '<not a TLS handshake>');
      this.raw.end(NOT_TLS);
      this.closed = true;
      return;
    }
    let secureContext: tls.SecureContext;
    try {
      secureContext = await this.ctx.tlsContext();
    } catch {
      return this.reply(REPLIES.tlsUnavailable);
    }
    await this.reply(REPLIES.startTlsReady);
    if (this.closed) return;
    await this.upgrade(secureContext);
  }

  private async upgrade(secureContext: tls.SecureContext): Promise<void> {
    // RFC 3207 §4.2: anything the client pipelined after STARTTLS is discarded (command injection).
    this.raw.off('data', this.onData);
    this.splitter.clear();
    this.queue.length = 0;
    const secure = new tls.TLSSocket(this.raw, { isServer: true, secureContext });
    secure.on('error', () => secure.destroy());
    secure.on('close', () => this.finish());
    this.socket = secure;
    const ok = await new Promise<boolean>((resolve) => {
      secure.once('secure', () => resolve(true));
      secure.once('close', () => resolve(false));
    });
    if (!ok || this.closed) return;
    this.secure = true;
    this.log.tls = true;
    this.greeted = false;
    this.mailFrom = undefined;
    secure.on('data', this.onData);
  }

  private async mail(line: string): Promise<void> {
    if (!this.greeted) return this.reply(REPLIES.helloFirst);
    if (this.behaviour.requireStartTls && !this.secure) return this.reply(REPLIES.startTlsRequired);
    if (this.limitAtMail) {
      await this.reply(REPLIES.rateLimited);
      this.end();
      return;
    }
    if (this.mailFrom !== undefined) return this.reply(REPLIES.nestedMail);
    const address = parsePath(line, 'FROM');
    if (address === undefined) return this.reply(REPLIES.mailSyntax);
    this.mailFrom = address;
    return this.reply(REPLIES.mailOk);
  }

  private async rcpt(line: string): Promise<void> {
    if (this.mailFrom === undefined) return this.reply(REPLIES.needMail);
    const address = parsePath(line, 'TO');
    if (address === undefined || address === '') return this.reply(REPLIES.rcptSyntax);
    this.rcptCount += 1;
    const verdict = this.ctx.policy.onRcpt({ clientIp: this.ctx.clientIp, mailFrom: this.mailFrom, recipient: address, rcptNumber: this.rcptCount });
    return this.reply(verdict);
  }

  private async reply(text: string | string[]): Promise<void> {
    const payload = Array.isArray(text) ? text.join('\r\n') : text;
    if (countsAsError(payload)) this.log.errors += 1;
    // Past the soft limit every reply is slowed, not only the error ones (Postfix's sleep-on-anything).
    const soft = this.behaviour.softErrorLimit;
    const errorSleepMs = soft !== undefined && this.log.errors >= soft ? this.behaviour.errorSleepMs : 0;
    const waited = await this.ctx.timers.sleep(this.ctx.replyDelayMs + errorSleepMs);
    if (!waited || this.closed) return;
    this.ctx.recorder.reply(this.log, payload);
    await new Promise<void>((resolve) => this.socket.write(`${payload}\r\n`, () => resolve()));
  }

  private end(): void {
    this.closed = true;
    this.socket.end();
  }

  // An abrupt close (RST), as when a server process dies mid-dialogue.
  private abort(): void {
    this.closed = true;
    try {
      this.raw.resetAndDestroy();
    } catch {
      this.destroy();
    }
  }

  private finish(): void {
    this.closed = true;
    this.queue.length = 0;
    this.ctx.recorder.close(this.log);
  }
}

// What the error limits count: every 4xx/5xx but the closing 421s and "too many recipients", which
// Postfix counts only past smtpd_recipient_overshoot_limit (1,000).
function countsAsError(payload: string): boolean {
  return /^[45]/.test(payload) && !payload.startsWith('421') && payload !== REPLIES.tooManyRecipients;
}

// "MAIL FROM:<a@b> SIZE=10" -> "a@b"; a space after the colon is tolerated, as Postfix does.
function parsePath(line: string, keyword: 'FROM' | 'TO'): string | undefined {
  const match = new RegExp(`^(?:MAIL|RCPT) ${keyword}:\\s*<([^<>\\s]*)>(?:\\s+\\S.*)?$`, 'i').exec(line);
  return match?.[1];
}
