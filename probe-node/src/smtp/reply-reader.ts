// Incremental SMTP reply parser with hard caps. No I/O: bytes in, complete replies out, so a
// hostile server's output is judged by tests without sockets. Every cap turns into a protocol
// error rather than more buffering: memory per session stays bounded whatever the peer sends.

export interface ReplyCaps {
  /** Longest reply line in bytes (without CRLF). */
  maxLineBytes: number;
  /** Most lines in one (multi-line) reply. */
  maxLines: number;
  /** Most bytes held at once: complete replies not yet consumed plus the partial reply and line. */
  maxBufferedBytes: number;
}

export interface RawReply {
  code: number;
  /** Lines as received, CRLF removed, control characters replaced (safe to log and to put in JSON). */
  lines: string[];
}

export class ReplyProtocolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReplyProtocolError';
  }
}

const LF = 0x0a;
const CR = 0x0d;
// RFC 5321 4.2: "Reply-code SP text" ends a reply, "Reply-code - text" continues it; a bare code is
// tolerated as a final line (some servers send "250").
const LINE = /^([2-5]\d\d)([ -]|$)/;

export class ReplyReader {
  private readonly caps: ReplyCaps;
  private partial: Buffer[] = [];
  private partialBytes = 0;
  private pendingLines: string[] = [];
  private pendingCode = 0;
  private pendingBytes = 0;
  private readonly ready: RawReply[] = [];
  private readyBytes = 0;
  // Set before STARTTLS: once its reply is complete, later bytes are not SMTP (or are injected).
  private haltAfterReply = false;
  private halted = false;

  constructor(caps: ReplyCaps) {
    this.caps = caps;
  }

  /** Feeds received bytes; throws ReplyProtocolError when the peer breaks the protocol or a cap. */
  push(chunk: Buffer): void {
    let start = 0;
    for (let i = chunk.indexOf(LF); i !== -1; i = chunk.indexOf(LF, start)) {
      if (this.halted) return;
      this.addPartial(chunk.subarray(start, i));
      const line = this.partial.length === 1 ? this.partial[0]! : Buffer.concat(this.partial);
      this.partial = [];
      this.partialBytes = 0;
      this.line(line.length > 0 && line[line.length - 1] === CR ? line.subarray(0, line.length - 1) : line);
      start = i + 1;
    }
    if (start < chunk.length && !this.halted) this.addPartial(chunk.subarray(start));
  }

  /** Ignore every byte after the next complete reply (until `clear`): used for the reply to STARTTLS. */
  haltAfterNextReply(): void {
    this.haltAfterReply = true;
  }

  /** The next complete reply, if any. */
  shift(): RawReply | undefined {
    const reply = this.ready.shift();
    if (reply) this.readyBytes -= reply.lines.reduce((n, l) => n + l.length, 0);
    return reply;
  }

  /** Whether nothing at all is buffered: no complete reply waiting, none begun. */
  get empty(): boolean {
    return this.ready.length === 0 && !this.midReply;
  }

  /** Whether a reply has begun but not ended (a close now means the server cut it). */
  get midReply(): boolean {
    return this.partialBytes > 0 || this.pendingLines.length > 0;
  }

  /** Forgets everything buffered: after STARTTLS, plaintext already received must not be trusted (RFC 3207 §4.2). */
  clear(): void {
    this.partial = [];
    this.partialBytes = 0;
    this.pendingLines = [];
    this.pendingCode = 0;
    this.pendingBytes = 0;
    this.ready.length = 0;
    this.readyBytes = 0;
    this.haltAfterReply = false;
    this.halted = false;
  }

  private addPartial(bytes: Buffer): void {
    if (bytes.length === 0) return;
    this.partialBytes += bytes.length;
    // +1: the CR that may still be part of the line ending.
    if (this.partialBytes > this.caps.maxLineBytes + 1) throw new ReplyProtocolError(`reply line longer than ${this.caps.maxLineBytes} bytes`);
    this.checkBuffered();
    // Copy: the socket's chunk may be reused, and a slice would pin the whole chunk in memory.
    this.partial.push(Buffer.from(bytes));
  }

  private line(bytes: Buffer): void {
    if (bytes.length > this.caps.maxLineBytes) throw new ReplyProtocolError(`reply line longer than ${this.caps.maxLineBytes} bytes`);
    const text = sanitize(bytes.toString('utf8'));
    const m = LINE.exec(text);
    if (!m) throw new ReplyProtocolError(`malformed reply line ${JSON.stringify(text.slice(0, 40))}`);
    const code = Number(m[1]);
    if (this.pendingLines.length === 0) this.pendingCode = code;
    else if (code !== this.pendingCode) throw new ReplyProtocolError(`reply code changed inside a multi-line reply (${this.pendingCode} then ${code})`);
    this.pendingLines.push(text);
    this.pendingBytes += text.length;
    if (this.pendingLines.length > this.caps.maxLines) throw new ReplyProtocolError(`reply longer than ${this.caps.maxLines} lines`);
    this.checkBuffered();
    if (m[2] === '-') return;
    this.ready.push({ code, lines: this.pendingLines });
    this.readyBytes += this.pendingBytes;
    this.pendingLines = [];
    this.pendingBytes = 0;
    if (this.haltAfterReply) this.halted = true;
  }

  private checkBuffered(): void {
    if (this.readyBytes + this.pendingBytes + this.partialBytes > this.caps.maxBufferedBytes) {
      throw new ReplyProtocolError(`more than ${this.caps.maxBufferedBytes} bytes of unread replies`);
    }
  }
}

/** Replaces control characters (NUL, bare CR, ESC…) so reply text is inert in logs and JSON. */
export function sanitize(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u2028\u2029]/g, '\uFFFD');
}
