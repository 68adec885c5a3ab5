import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';

// A local HTTP server that answers every request badly, on raw sockets so it can break the
// protocol itself (node's http server would refuse to). The first path segment picks the
// behaviour: `http://127.0.0.1:PORT/<case>/anything`. Tests point every URL-taking surface (list
// URLs, webhook targets, RDAP) at each case and assert the caller gets its own error shape, the
// process lives and memory stays bounded.

export const HOSTILE_CASES = [
  /** A well-formed 200 CSV: the hostility is in the URL the client was given (e.g. `/ok/%E0`). */
  'ok',
  /** A status line that is not HTTP. */
  'bad-status-line',
  /** `HTTP/1.1 99999 …`: a status outside 100-999. */
  'bad-status-code',
  /** Chunked encoding with a chunk size that is not hex, after a valid first chunk. */
  'broken-chunked',
  /** A 200 whose body is not UTF-8 (and not CSV). */
  'invalid-utf8',
  /** One header line of 1 MB. */
  'huge-headers',
  /** Headers, then one body byte every 100 ms for as long as the client stays. */
  'slow-drip',
  /** Headers only, never a status line's end: the client waits for nothing. */
  'slow-headers',
  /** Content-Length 100,000, 1,000 bytes sent, then a TCP reset. */
  'reset-mid-body',
  /** `Content-Encoding: gzip` of ~1 GB of zeros (~1 MB on the wire). */
  'gzip-bomb',
  /** A redirect whose Location is not a URL. */
  'bad-location',
  /** A 200 declaring a body length that is not a number. */
  'bad-content-length',
] as const;
export type HostileCase = (typeof HOSTILE_CASES)[number];

export interface HostileServer {
  url: string;
  /** Requests seen per case (a test can tell the client really reached the server). */
  hits: Map<string, number>;
  close(): Promise<void>;
}

const CSV = 'email\nhostile.one@example.com\n';
let bomb: Buffer | undefined;
/** 16 gzip members of 64 MB of zeros each: gunzip reads them as one stream of 1 GB. */
function gzipBomb(): Buffer {
  if (!bomb) {
    const member = gzipSync(Buffer.alloc(64 * 1024 * 1024), { level: 9 });
    bomb = Buffer.concat(Array.from({ length: 16 }, () => member));
  }
  return bomb;
}

function head(status: string, headers: Record<string, string | number>): string {
  return `HTTP/1.1 ${status}\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}Connection: close\r\n\r\n`;
}

function answer(c: string, socket: Socket): void {
  const end = (text: string | Buffer): void => {
    socket.end(text);
  };
  switch (c as HostileCase) {
    case 'ok':
      return end(head('200 OK', { 'Content-Type': 'text/csv', 'Content-Length': CSV.length }) + CSV);
    case 'bad-status-line':
      return end('SMTP/9 hello there\r\n\r\nnot http at all');
    case 'bad-status-code':
      return end(head('99999 Whatever', { 'Content-Length': 0 }));
    case 'broken-chunked':
      return end(`${head('200 OK', { 'Content-Type': 'text/csv', 'Transfer-Encoding': 'chunked' })}6\r\nemail\n\r\nzz-not-hex\r\nabc\r\n`);
    case 'invalid-utf8':
      return end(Buffer.concat([Buffer.from(head('200 OK', { 'Content-Type': 'text/csv', 'Content-Length': 6 })), Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xa0, 0xa1])]));
    case 'huge-headers':
      socket.write(`HTTP/1.1 200 OK\r\nX-Huge: ${'a'.repeat(1024 * 1024)}\r\n`);
      return end('Content-Length: 0\r\n\r\n');
    case 'slow-drip':
    case 'slow-headers': {
      socket.write(c === 'slow-drip' ? head('200 OK', { 'Content-Type': 'text/csv' }) : 'HTTP/1.1 200 OK\r\n');
      const drip = setInterval(() => {
        if (socket.destroyed) return clearInterval(drip);
        socket.write(c === 'slow-drip' ? 'a' : `X-Drip-${Date.now()}: 1\r\n`);
      }, 100);
      socket.on('close', () => clearInterval(drip));
      return;
    }
    case 'reset-mid-body':
      socket.write(head('200 OK', { 'Content-Type': 'text/csv', 'Content-Length': 100_000 }) + `email\n${'x'.repeat(993)}`);
      setTimeout(() => socket.resetAndDestroy(), 50);
      return;
    case 'gzip-bomb': {
      const body = gzipBomb();
      socket.write(head('200 OK', { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip', 'Content-Length': body.length }));
      end(body);
      return;
    }
    case 'bad-location':
      return end(head('302 Found', { Location: 'http://[::1', 'Content-Length': 0 }));
    case 'bad-content-length':
      return end(head('200 OK', { 'Content-Type': 'text/csv', 'Content-Length': 'lots' }) + CSV);
    default:
      return end(head('404 Not Found', { 'Content-Length': 0 }));
  }
}

export async function startHostileServer(): Promise<HostileServer> {
  // Built before the first request, so a test measuring its own memory does not count it.
  gzipBomb();
  const hits = new Map<string, number>();
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    // The client hanging up mid-answer is expected; it must not crash the test process.
    socket.on('error', () => undefined);
    let buf = '';
    const onData = (d: Buffer) => {
      buf += d.toString('latin1');
      const eol = buf.indexOf('\r\n');
      if (eol < 0) return;
      // Answer once the request line is in; a POST's body is read and dropped.
      socket.off('data', onData);
      socket.on('data', () => undefined);
      const path = buf.slice(0, eol).split(' ')[1] ?? '/';
      const c = path.split('/')[1] ?? '';
      hits.set(c, (hits.get(c) ?? 0) + 1);
      answer(c, socket);
    };
    socket.on('data', onData);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
