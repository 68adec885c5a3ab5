// One SMTP client connection on node:net / node:tls: connect, read replies with deadlines,
// write commands, upgrade to TLS. Every failure becomes a SessionFailure carrying the session
// outcome it stands for, and every failure path destroys the socket: nothing outlives a session.
import net from 'node:net';
import tls from 'node:tls';
import { commandLine, type Command } from './commands.ts';
import { ReplyProtocolError, ReplyReader, type RawReply, type ReplyCaps } from './reply-reader.ts';

export type FailureOutcome = 'connect_failed' | 'timeout' | 'dropped' | 'tls_failed' | 'protocol_error';

export class SessionFailure extends Error {
  readonly outcome: FailureOutcome;
  /** The failure is this node's own (no source address, no route out, a local firewall), not the server's. */
  readonly local: boolean;
  constructor(outcome: FailureOutcome, message: string, local = false) {
    super(message);
    this.name = 'SessionFailure';
    this.outcome = outcome;
    this.local = local;
  }
}

/**
 * Connect errors raised by our own side of the connection: the source address is not configured
 * (or vanished), no route leaves this host, the port range is exhausted, a local firewall said no.
 * A refusal, a timeout or a host-unreachable (which a router on the way may send) may be the
 * server's, so they are not here.
 */
const LOCAL_CONNECT_ERRORS = new Set(['EADDRNOTAVAIL', 'EADDRINUSE', 'ENETUNREACH', 'ENETDOWN', 'EPERM', 'EACCES']);

export interface ConnectOptions {
  ip: string;
  port: number;
  /** Source address to bind; undefined lets the OS choose. */
  localAddress?: string;
  timeoutMs: number;
  caps: ReplyCaps;
  /** Aborting it ends the connection at once (session deadline, node shutdown). */
  signal?: AbortSignal;
}

export interface TlsInfo {
  /** Whether the certificate chain verified for the host name. The probe continues either way. */
  verified: boolean;
  protocol: string | null;
}

export class SmtpConnection {
  private socket: net.Socket;
  private readonly reader: ReplyReader;
  private failure: SessionFailure | null = null;
  private detachCurrent: () => void = () => undefined;
  private waiter: { resolve: (r: RawReply) => void; reject: (e: SessionFailure) => void } | null = null;
  private signal: AbortSignal | undefined;
  private readonly onAbort = (): void => this.fail(new SessionFailure('timeout', abortMessage(this.signal)));
  readonly localAddress: string | null;
  readonly remoteAddress: string;

  private constructor(socket: net.Socket, caps: ReplyCaps, signal: AbortSignal | undefined) {
    this.socket = socket;
    this.reader = new ReplyReader(caps);
    this.signal = signal;
    this.localAddress = socket.localAddress ?? null;
    this.remoteAddress = socket.remoteAddress ?? '';
    this.attach(socket);
    signal?.addEventListener('abort', this.onAbort, { once: true });
    if (signal?.aborted) this.onAbort();
  }

  /** Opens the TCP connection; rejects with a `connect_failed` SessionFailure (detail: refused, timeout…). */
  static connect(opts: ConnectOptions): Promise<SmtpConnection> {
    return new Promise((resolve, reject) => {
      if (opts.signal?.aborted) {
        reject(new SessionFailure('connect_failed', abortMessage(opts.signal)));
        return;
      }
      const socket = net.connect({ host: opts.ip, port: opts.port, localAddress: opts.localAddress, noDelay: true });
      const done = (err: SessionFailure | null): void => {
        clearTimeout(timer);
        socket.off('error', onError);
        socket.off('connect', onConnect);
        opts.signal?.removeEventListener('abort', onAbort);
        if (err) {
          socket.destroy();
          reject(err);
        } else {
          resolve(new SmtpConnection(socket, opts.caps, opts.signal));
        }
      };
      const onError = (e: NodeJS.ErrnoException): void => done(new SessionFailure('connect_failed', connectErrorText(e), LOCAL_CONNECT_ERRORS.has(e.code ?? '')));
      const onConnect = (): void => done(null);
      const onAbort = (): void => done(new SessionFailure('connect_failed', abortMessage(opts.signal)));
      const timer = setTimeout(() => done(new SessionFailure('connect_failed', `timeout after ${opts.timeoutMs} ms`)), opts.timeoutMs);
      socket.once('error', onError);
      socket.once('connect', onConnect);
      opts.signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  get tlsActive(): boolean {
    return this.socket instanceof tls.TLSSocket;
  }

  /** Writes commands as one segment (a pipelined group when there are several). */
  send(commands: readonly Command[]): void {
    if (this.failure) throw this.failure;
    const text = commands.map((c) => `${commandLine(c)}\r\n`).join('');
    this.socket.write(text, 'utf8');
  }

  /** Sends STARTTLS; whatever follows its reply in clear text is ignored (RFC 3207 §4.2). */
  sendStartTls(): void {
    this.reader.haltAfterNextReply();
    this.send([{ verb: 'STARTTLS' }]);
  }

  /** After a STARTTLS reply other than 220: the dialogue goes on in clear. */
  resumeClear(): void {
    this.reader.clear();
  }

  /**
   * The next reply, waiting at most `timeoutMs`. `what` names the awaited reply in a timeout
   * message ("greeting", "RCPT"). A reply that arrived before the call is returned at once.
   */
  read(timeoutMs: number, what: string): Promise<RawReply> {
    const ready = this.reader.shift();
    if (ready) return Promise.resolve(ready);
    if (this.failure) return Promise.reject(this.failure);
    return new Promise<RawReply>((resolve, reject) => {
      const timer = setTimeout(() => this.fail(new SessionFailure('timeout', `no ${what} reply within ${timeoutMs} ms`)), timeoutMs);
      this.waiter = {
        resolve: (r) => {
          clearTimeout(timer);
          resolve(r);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      };
    });
  }

  /**
   * Upgrades after the server's 220 to STARTTLS. The certificate is not required to verify: a probe
   * sends no content, and refusing a self-signed or expired certificate would only lose the answer
   * (`verified` records it). A handshake that fails ends the connection with `tls_failed`.
   */
  async startTls(servername: string | undefined, timeoutMs: number): Promise<TlsInfo> {
    if (this.failure) throw this.failure;
    const raw = this.socket;
    this.detachCurrent();
    // RFC 3207 §4.2: anything received in clear after the 220 may be injected; drop it.
    this.reader.clear();
    const secure = tls.connect({ socket: raw, servername, rejectUnauthorized: false, minVersion: 'TLSv1.2' });
    // Kept for the socket's whole life: an error after a failed handshake must not go unhandled.
    secure.on('error', () => undefined);
    this.socket = secure;
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => finish(new SessionFailure('tls_failed', `TLS handshake not done within ${timeoutMs} ms`)), timeoutMs);
        const finish = (err: SessionFailure | null): void => {
          clearTimeout(timer);
          secure.off('secureConnect', onSecure);
          secure.off('error', onError);
          secure.off('close', onClose);
          this.signal?.removeEventListener('abort', onAbort);
          if (err) reject(err);
          else resolve();
        };
        const onSecure = (): void => finish(null);
        const onError = (e: Error): void => finish(new SessionFailure('tls_failed', `TLS handshake failed: ${e.message.slice(0, 200)}`));
        const onClose = (): void => finish(new SessionFailure('tls_failed', 'connection closed during the TLS handshake'));
        const onAbort = (): void => finish(new SessionFailure('timeout', abortMessage(this.signal)));
        secure.once('secureConnect', onSecure);
        secure.once('error', onError);
        secure.once('close', onClose);
        this.signal?.addEventListener('abort', onAbort, { once: true });
      });
    } catch (err) {
      this.fail(err as SessionFailure);
      throw err;
    }
    this.attach(secure);
    return { verified: secure.authorized, protocol: secure.getProtocol() ?? null };
  }

  /**
   * Open, not failed, and nothing unread: safe to start another transaction on (a server that
   * said something while idle, e.g. a 421 before closing, makes it unusable).
   */
  get reusable(): boolean {
    return this.failure === null && this.reader.empty && !this.socket.destroyed;
  }

  /** Binds the connection to another session's deadline (a kept-open connection taken by a new session). */
  adopt(signal: AbortSignal | undefined): void {
    this.signal?.removeEventListener('abort', this.onAbort);
    this.signal = signal;
    signal?.addEventListener('abort', this.onAbort, { once: true });
    if (signal?.aborted) this.onAbort();
  }

  /** Ends the connection now (idempotent). Pending reads reject with `reason`. */
  destroy(reason = 'connection closed by the probe'): void {
    this.fail(new SessionFailure('dropped', reason));
  }

  private attach(socket: net.Socket): void {
    const onData = (chunk: Buffer): void => this.onData(socket, chunk);
    const onEnd = (): void => this.onClosed(socket);
    const onError = (e: NodeJS.ErrnoException): void => this.onError(socket, e);
    socket.on('data', onData);
    socket.on('end', onEnd);
    socket.on('close', onEnd);
    socket.on('error', onError);
    this.detachCurrent = () => {
      socket.off('data', onData);
      socket.off('end', onEnd);
      socket.off('close', onEnd);
      socket.off('error', onError);
      // An error after detaching (e.g. a reset during the handshake) must not go unhandled.
      socket.on('error', () => undefined);
    };
  }

  private onData(from: net.Socket, chunk: Buffer): void {
    if (from !== this.socket || this.failure) return;
    try {
      this.reader.push(chunk);
    } catch (err) {
      if (err instanceof ReplyProtocolError) {
        this.fail(new SessionFailure('protocol_error', err.message));
        return;
      }
      throw err;
    }
    this.wake();
  }

  private onClosed(from: net.Socket): void {
    if (from !== this.socket) return;
    this.fail(new SessionFailure('dropped', this.reader.midReply ? 'connection closed in the middle of a reply' : 'connection closed by the server'));
  }

  private onError(from: net.Socket, e: NodeJS.ErrnoException): void {
    if (from !== this.socket) return;
    this.fail(new SessionFailure('dropped', e.code === 'ECONNRESET' ? 'connection reset by the server' : `socket error: ${e.code ?? e.message}`));
  }

  private wake(): void {
    if (!this.waiter) return;
    const reply = this.reader.shift();
    if (!reply) return;
    const { resolve } = this.waiter;
    this.waiter = null;
    resolve(reply);
  }

  private fail(failure: SessionFailure): void {
    if (!this.failure) {
      this.failure = failure;
      this.signal?.removeEventListener('abort', this.onAbort);
      // Replies already complete stay readable (a 221 followed by FIN, a 421 before close).
      this.socket.destroy();
    }
    if (this.waiter) {
      const { reject } = this.waiter;
      this.waiter = null;
      reject(this.failure);
    }
  }
}

function connectErrorText(e: NodeJS.ErrnoException): string {
  switch (e.code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'EHOSTUNREACH':
      return 'unreachable';
    case 'ENETUNREACH':
      return 'no route from this node';
    case 'EADDRNOTAVAIL':
      return 'source address not available';
    default:
      return e.code ?? e.message;
  }
}

function abortMessage(signal: AbortSignal | undefined): string {
  const reason: unknown = signal?.reason;
  return reason instanceof Error ? reason.message : typeof reason === 'string' ? reason : 'aborted';
}
