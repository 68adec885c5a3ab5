// TEST-ONLY: real webhook receivers on loopback (plain HTTP or HTTPS with a throwaway certificate),
// recording every request with its raw body, so tests check what actually went over the wire.
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';

export interface Received {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
  /** TLS SNI the client sent (https receivers only). */
  servername: string | null;
  at: number;
}

/** Decides the answer to the n-th request (1-based). The default answers 204. */
export type Responder = (req: IncomingMessage, res: ServerResponse, n: number) => void;

export interface Receiver {
  port: number;
  received: Received[];
  respond: Responder;
  url(path?: string, host?: string): string;
  close(): Promise<void>;
}

export async function startReceiver(opts: { tls?: { key: string; cert: string } } = {}): Promise<Receiver> {
  const received: Received[] = [];
  const sockets = new Set<Socket>();
  const receiver: Receiver = {
    port: 0,
    received,
    respond: (_req, res) => {
      res.statusCode = 204;
      res.end();
    },
    url(path = '/hook', host = '127.0.0.1') {
      return `${opts.tls ? 'https' : 'http'}://${host}:${receiver.port}${path}`;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const tlsSocket = req.socket as TLSSocket;
      received.push({
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        servername: typeof tlsSocket.servername === 'string' ? tlsSocket.servername : null,
        at: Date.now(),
      });
      receiver.respond(req, res, received.length);
    });
  };
  const server = opts.tls ? https.createServer({ key: opts.tls.key, cert: opts.tls.cert }, handler) : http.createServer(handler);
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  receiver.port = (server.address() as AddressInfo).port;
  return receiver;
}

/** A self-signed certificate for the given names (EC: generated in milliseconds). */
export async function testCertificate(names: string[]): Promise<{ key: string; cert: string }> {
  const { default: selfsigned } = await import('selfsigned');
  const pems = await selfsigned.generate([{ name: 'commonName', value: names[0] ?? 'localhost' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notAfterDate: new Date(Date.now() + 24 * 3600 * 1000),
    extensions: [{ name: 'subjectAltName', altNames: names.map((value) => ({ type: 2, value })) }],
  });
  return { key: pems.private, cert: pems.cert };
}
