// A few long-lived UDP sockets per upstream server, shared by every query to it. Each socket is
// connect()ed to its server: the kernel then delivers only that server's datagrams, and a send
// skips Node's per-datagram address lookup (measurably cheaper at tens of thousands of queries per
// second). Each outstanding query holds a random 16-bit id that no other outstanding query uses;
// a datagram is accepted only when it arrives on the socket the query left from, from the server
// it was sent to, with that id and the same question. Anything else (late, spoofed, garbage,
// oversized) is dropped and the query keeps waiting.
import dgram from 'node:dgram';
import { randomInt } from 'node:crypto';
import { decodeMessage, peekId, type DecodeLimits } from './wire.ts';
import { answersQuestion, type ExchangeOutcome, type ExchangeRequest } from './exchange.ts';
import { sameAddress } from './address.ts';
import type { UpstreamServer } from './servers.ts';

export interface UdpPoolOptions extends DecodeLimits {
  /** Sockets per upstream server. */
  size: number;
  maxResponseBytes: number;
}

interface PoolSocket {
  socket: dgram.Socket;
  server: UpstreamServer;
  outstanding: number;
  /** Resolves once connect() has completed; sends wait for it. */
  connected: Promise<boolean>;
  ready: boolean;
}

interface Pending {
  socket: PoolSocket;
  request: ExchangeRequest;
  timer: NodeJS.Timeout;
  finish: (outcome: ExchangeOutcome) => void;
}

export class UdpPool {
  readonly #options: UdpPoolOptions;
  readonly #sockets = new Map<string, PoolSocket[]>();
  readonly #pending = new Map<number, Pending>();
  #closed = false;
  /** Datagrams dropped as not matching any outstanding query (for tests and metrics). */
  dropped = 0;

  constructor(options: UdpPoolOptions) {
    this.#options = { ...options, size: Math.max(1, options.size) };
  }

  get socketCount(): number {
    let n = 0;
    for (const list of this.#sockets.values()) n += list.length;
    return n;
  }

  get outstanding(): number {
    return this.#pending.size;
  }

  exchange(request: ExchangeRequest): Promise<ExchangeOutcome> {
    if (this.#closed) return Promise.resolve({ kind: 'error', error: 'resolver closed' });
    const id = this.#freeId();
    if (id === null) return Promise.resolve({ kind: 'error', error: 'no free transaction id' });
    const poolSocket = this.#pickSocket(request.server);
    return new Promise<ExchangeOutcome>((resolve) => {
      const finish = (outcome: ExchangeOutcome): void => {
        const pending = this.#pending.get(id);
        if (!pending || pending.finish !== finish) return;
        clearTimeout(pending.timer);
        this.#pending.delete(id);
        poolSocket.outstanding--;
        resolve(outcome);
      };
      const timer = setTimeout(() => finish({ kind: 'timeout' }), request.timeoutMs);
      this.#pending.set(id, { socket: poolSocket, request, timer, finish });
      poolSocket.outstanding++;
      let query: Buffer;
      try {
        query = request.encode(id);
      } catch (err) {
        finish({ kind: 'error', error: `cannot encode query: ${(err as Error).message}` });
        return;
      }
      // No per-send callback: a failed send surfaces as a socket error, which fails this socket's
      // queries over to the resolver's retry path (see #onSocketError).
      if (poolSocket.ready) send(poolSocket, query, finish);
      else void poolSocket.connected.then((ok) => (ok ? send(poolSocket, query, finish) : finish({ kind: 'error', error: 'cannot connect the UDP socket' })));
    });
  }

  close(): void {
    this.#closed = true;
    for (const pending of [...this.#pending.values()]) pending.finish({ kind: 'error', error: 'resolver closed' });
    for (const list of this.#sockets.values()) for (const s of list) s.socket.close();
    this.#sockets.clear();
  }

  #freeId(): number | null {
    if (this.#pending.size >= 0x10000) return null;
    for (;;) {
      const id = randomInt(0x10000);
      if (!this.#pending.has(id)) return id;
    }
  }

  /** Least-loaded socket for the server; a new one only while all existing ones are busy. */
  #pickSocket(server: UpstreamServer): PoolSocket {
    const list = this.#sockets.get(serverKey(server)) ?? [];
    let best = list[0];
    for (const s of list) if (best && s.outstanding < best.outstanding) best = s;
    if (best && (best.outstanding === 0 || list.length >= this.#options.size)) return best;
    return this.#openSocket(server, list);
  }

  #openSocket(server: UpstreamServer, list: PoolSocket[]): PoolSocket {
    const socket = dgram.createSocket({ type: server.family === 4 ? 'udp4' : 'udp6' });
    let settle: (ok: boolean) => void = () => undefined;
    const entry: PoolSocket = { socket, server, outstanding: 0, connected: new Promise((resolve) => (settle = resolve)), ready: false };
    socket.on('message', (msg, rinfo) => this.#onMessage(entry, msg, rinfo));
    socket.on('error', (err) => {
      settle(false);
      this.#onSocketError(entry, err);
    });
    socket.connect(server.port, server.host, () => {
      entry.ready = true;
      settle(true);
    });
    // Idle sockets must not keep the process alive; pending timers do while queries wait.
    socket.unref();
    list.push(entry);
    this.#sockets.set(serverKey(server), list);
    return entry;
  }

  #onMessage(from: PoolSocket, msg: Buffer, rinfo: dgram.RemoteInfo): void {
    const id = peekId(msg);
    const pending = id === null ? undefined : this.#pending.get(id);
    const server = pending?.request.server;
    if (
      !pending ||
      !server ||
      pending.socket !== from ||
      msg.length > this.#options.maxResponseBytes ||
      rinfo.port !== server.port ||
      !sameAddress(rinfo.address, server.host)
    ) {
      this.dropped++;
      return;
    }
    let message;
    try {
      message = decodeMessage(msg, this.#options);
    } catch {
      this.dropped++;
      return;
    }
    if (!answersQuestion(message, pending.request.name, pending.request.type)) {
      this.dropped++;
      return;
    }
    pending.finish({ kind: 'reply', message });
  }

  #onSocketError(entry: PoolSocket, err: Error): void {
    const list = this.#sockets.get(serverKey(entry.server));
    const i = list?.indexOf(entry) ?? -1;
    if (list && i >= 0) list.splice(i, 1);
    for (const pending of [...this.#pending.values()]) {
      if (pending.socket === entry) pending.finish({ kind: 'error', error: `socket error: ${err.message}` });
    }
    try {
      entry.socket.close();
    } catch {
      // already closed
    }
  }
}

/** A socket closed under us (error, close()) throws synchronously: that ends the query, not the process. */
function send(entry: PoolSocket, query: Buffer, finish: (outcome: ExchangeOutcome) => void): void {
  try {
    entry.socket.send(query);
  } catch (err) {
    finish({ kind: 'error', error: `send failed: ${(err as Error).message}` });
  }
}

function serverKey(server: UpstreamServer): string {
  return `${server.host}|${server.port}`;
}
