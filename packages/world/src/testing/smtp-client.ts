// A deliberately plain SMTP client over a raw socket, for tests that assert exact wire behaviour.
import net from 'node:net';
import tls from 'node:tls';

export interface SmtpReply {
  code: number;
  lines: string[];
  // The whole reply as sent, lines joined with CRLF.
  text: string;
}

export interface ConnectOptions {
  host: string;
  port: number;
  // Source address, to appear as a particular client IP.
  localAddress?: string;
  timeoutMs?: number;
}

export class RawSmtpClient {
  private readonly chunks: Buffer[] = [];
  readonly closed: Promise<{ error?: NodeJS.ErrnoException }>;
  private socket: net.Socket;
  // Complete lines of a reply still waiting for its final line, and the start of the next line.
  private replyLines: string[] = [];
  private partial = '';
  private readonly replies: SmtpReply[] = [];
  private waiter: (() => void) | undefined;
  private isClosed = false;
  private readonly timeoutMs: number;

  private constructor(socket: net.Socket, timeoutMs: number) {
    this.socket = socket;
    this.timeoutMs = timeoutMs;
    this.closed = new Promise((resolve) => {
      let error: NodeJS.ErrnoException | undefined;
      socket.on('error', (e: NodeJS.ErrnoException) => (error = e));
      socket.on('close', () => {
        this.isClosed = true;
        this.waiter?.();
        resolve({ error });
      });
    });
    this.listen(socket);
  }

  static connect(options: ConnectOptions): Promise<RawSmtpClient> {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ host: options.host, port: options.port, localAddress: options.localAddress });
      socket.once('error', reject);
      socket.once('connect', () => {
        socket.off('error', reject);
        resolve(new RawSmtpClient(socket, options.timeoutMs ?? 5000));
      });
    });
  }

  // Every byte received, for tests on hosts that do not speak SMTP.
  get received(): Buffer {
    return Buffer.concat(this.chunks);
  }

  get isOpen(): boolean {
    return !this.isClosed;
  }

  send(line: string): void {
    this.socket.write(`${line}\r\n`);
  }

  writeRaw(data: string | Buffer): void {
    this.socket.write(data);
  }

  async command(line: string): Promise<SmtpReply> {
    this.send(line);
    return this.reply();
  }

  // Next complete reply; rejects if the connection closes first or nothing arrives in time.
  async reply(timeoutMs = this.timeoutMs): Promise<SmtpReply> {
    const deadline = Date.now() + timeoutMs;
    while (this.replies.length === 0) {
      if (this.isClosed) throw new Error(`connection closed before a complete reply; partial: ${JSON.stringify([...this.replyLines, this.partial].join('\r\n').slice(0, 200))}`);
      const remainingMs = deadline - Date.now();
      if (remainingMs <= 0) throw new Error(`no reply within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, remainingMs);
        this.waiter = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.waiter = undefined;
    }
    return this.replies.shift() as SmtpReply;
  }

  async startTls(): Promise<void> {
    this.socket.removeAllListeners('data');
    const secure = tls.connect({ socket: this.socket, rejectUnauthorized: false });
    await new Promise<void>((resolve, reject) => {
      secure.once('secureConnect', () => resolve());
      secure.once('error', reject);
    });
    this.socket = secure;
    this.listen(secure);
  }

  end(): void {
    this.socket.end();
  }

  destroy(): void {
    this.socket.destroy();
  }

  private listen(socket: net.Socket): void {
    socket.on('data', (chunk: Buffer) => {
      this.chunks.push(chunk);
      this.parse(chunk.toString('latin1'));
      this.waiter?.();
    });
  }

  // Linear in the bytes received, so a multi-megabyte flood stays cheap to read.
  private parse(text: string): void {
    const pieces = (this.partial + text).split('\r\n');
    this.partial = pieces.pop() ?? '';
    for (const line of pieces) {
      this.replyLines.push(line);
      if (/^\d{3}(?: |$)/.test(line)) {
        this.replies.push({ code: Number(line.slice(0, 3)), lines: this.replyLines, text: this.replyLines.join('\r\n') });
        this.replyLines = [];
      }
    }
  }
}
