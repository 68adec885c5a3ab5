// A few long-lived UDP sockets shared by every query. Each outstanding query holds a random
// 16-bit id that no other outstanding query uses; a datagram is accepted only when it arrives on
// the socket the query left from, from the server it was sent to, with that id and the same
// question. Anything else (late, spoofed, garbage, oversized) is dropped and the query keeps waiting.
import dgram from 'node:dgram';
import { randomInt } from 'node:crypto';
import { decodeMessage, peekId, type DecodeLimits } from './wire.ts';
import { answersQuestion, type ExchangeOutcome, type ExchangeRequest } from './exchange.ts';
import { sameAddress } from './address.ts';

export interface UdpPoolOptions extends DecodeLimits {
  /** Sockets per address family. */
  size: number;
  maxResponseBytes: number;
}

interface PoolSocket {
  socket: dgram.Socket;
  family: 4 | 6;
  outstanding: number;
}

interface Pending {
  socket: PoolSocket;
  request: ExchangeRequest;
  timer: NodeJS.Timeout;
  finish: (outcome: ExchangeOutcome) => void;
}

export class UdpPool {
  readonly #options: UdpPoolOptions;
  readonly #sockets: PoolSocket[] = [];
  readonly #pending = new Map<number, Pending>();
  #closed = false;
  /** Datagrams dropped as not matching any outstanding query (for tests and metrics). */
  dropped = 0;

  constructor(options: UdpPoolOptions) {
    this.#options = { ...options, size: Math.max(1, options.size) };
  }

  get socketCount(): number {
    return this.#sockets.length;
  }

  get outstanding(): number {
    return this.#pending.size;
  }

  exchange(request: ExchangeRequest): Promise<ExchangeOutcome> {
    if (this.#closed) return Promise.resolve({ kind: 'error', error: 'resolver closed' });
    const id = this.#freeId();
    if (id === null) return Promise.resolve({ kind: 'error', error: 'no free transaction id' });
    const poolSocket = this.#pickSocket(request.server.family);
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
      poolSocket.socket.send(query, request.server.port, request.server.host, (err) => {
        if (err) finish({ kind: 'error', error: `send failed: ${err.message}` });
      });
    });
  }

  close(): void {
    this.#closed = true;
    for (const pending of [...this.#pending.values()]) pending.finish({ kind: 'error', error: 'resolver closed' });
    for (const s of this.#sockets.splice(0)) s.socket.close();
  }

  #freeId(): number | null {
    if (this.#pending.size >= 0x10000) return null;
    for (;;) {
      const id = randomInt(0x10000);
      if (!this.#pending.has(id)) return id;
    }
  }

  /** Least-loaded socket of the family; a new one only while all existing ones are busy. */
  #pickSocket(family: 4 | 6): PoolSocket {
    const sameFamily = this.#sockets.filter((s) => s.family === family);
    let best = sameFamily[0];
    for (const s of sameFamily) if (best && s.outstanding < best.outstanding) best = s;
    if (best && (best.outstanding === 0 || sameFamily.length >= this.#options.size)) return best;
    return this.#openSocket(family);
  }

  #openSocket(family: 4 | 6): PoolSocket {
    const socket = dgram.createSocket({ type: family === 4 ? 'udp4' : 'udp6' });
    const entry: PoolSocket = { socket, family, outstanding: 0 };
    socket.on('message', (msg, rinfo) => this.#onMessage(entry, msg, rinfo));
    socket.on('error', (err) => this.#onSocketError(entry, err));
    // Idle sockets must not keep the process alive; pending timers do while queries wait.
    socket.unref();
    this.#sockets.push(entry);
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
    const i = this.#sockets.indexOf(entry);
    if (i >= 0) this.#sockets.splice(i, 1);
    for (const pending of [...this.#pending.values()]) {
      if (pending.socket === entry) pending.finish({ kind: 'error', error: `socket error: ${err.message}` });
    }
    entry.socket.close();
  }
}
