// A few long-lived UDP sockets per upstream server, shared by every query to it. Each socket is
// connect()ed to its server: the kernel then delivers only that server's datagrams, and a send
// skips Node's per-datagram address lookup (measurably cheaper at tens of thousands of queries per
// second). Each outstanding query holds a random 16-bit id that no other outstanding query uses;
// a datagram is accepted only when it arrives on the socket the query left from, from the server
// it was sent to, with that id and the same question. Anything else (late, spoofed, garbage,
// oversized) is dropped and the query keeps waiting.
//
// Two socket implementations, same rules: the udp_batch addon (native.ts: recvmmsg/sendmmsg, one
// JS call per batch of replies, queries of one event-loop turn sent together from setImmediate)
// when it is built, else node:dgram (one system call and one callback per datagram). The addon
// checks the source address in C and drops datagrams larger than maxResponseBytes (its slot size);
// ids, sockets and questions are checked here for both.
import dgram from 'node:dgram';
import { randomFillSync } from 'node:crypto';
import { getSystemErrorName } from 'node:util';
import { decodeMessage, peekId, type DecodeLimits, type DecodedMessage } from './wire.ts';
import { answersQuestion, type ExchangeOutcome, type ExchangeRequest } from './exchange.ts';
import { sameAddress } from './address.ts';
import { ERRNO, loadUdpBatch, type NativeHandle, type UdpBatchAddon } from './native.ts';
import type { UpstreamServer } from './servers.ts';

/** `auto`: the addon when it loads, else dgram. `native`: the addon or an error. */
export type UdpTransport = 'auto' | 'native' | 'dgram';

export interface UdpPoolOptions extends DecodeLimits {
  /** Sockets per upstream server. */
  size: number;
  maxResponseBytes: number;
  transport?: UdpTransport;
  /** The addon to use; by default the built one (tests pass null to simulate its absence). */
  addon?: UdpBatchAddon | null;
}

/** Receive slots per native socket: datagrams read by one recvmmsg(). */
const NATIVE_SLOTS = 32;

interface PoolSocket {
  server: UpstreamServer;
  outstanding: number;
  /** Resolves once connect() has completed; sends wait for it. */
  connected: Promise<boolean>;
  ready: boolean;
  closed: boolean;
  dgram: dgram.Socket | null;
  native: NativeHandle | null;
  /** Native sockets: queries waiting for this event-loop turn's sendmmsg(). */
  queue: Buffer[];
}

interface Pending {
  id: number;
  socket: PoolSocket;
  request: ExchangeRequest;
  timer: NodeJS.Timeout;
  resolve: (outcome: ExchangeOutcome) => void;
}

export class UdpPool {
  readonly #options: UdpPoolOptions;
  readonly #addon: UdpBatchAddon | null;
  readonly #sockets = new Map<string, PoolSocket[]>();
  /** Outstanding queries by transaction id. */
  readonly #pending = new Map<number, Pending>();
  /** Random ids drawn from the CSPRNG in blocks (crypto.randomInt per query costs more). */
  readonly #ids = new Uint16Array(1024);
  #idAt = this.#ids.length;
  /** Native sockets with queued queries, flushed together by one setImmediate. */
  #dirty: PoolSocket[] = [];
  #flushScheduled = false;
  #closed = false;
  /** Datagrams dropped as not matching any outstanding query (for tests and metrics). */
  dropped = 0;

  constructor(options: UdpPoolOptions) {
    this.#options = { ...options, size: Math.max(1, options.size) };
    const transport = options.transport ?? 'auto';
    this.#addon = transport === 'dgram' ? null : options.addon !== undefined ? options.addon : loadUdpBatch();
    if (transport === 'native' && !this.#addon) throw new Error('the udp_batch addon is not available (packages/mailsec/native not built)');
  }

  /** Which implementation new sockets use. */
  get transport(): 'native' | 'dgram' {
    return this.#addon ? 'native' : 'dgram';
  }

  get socketCount(): number {
    let n = 0;
    for (const list of this.#sockets.values()) n += list.length;
    return n;
  }

  get outstanding(): number {
    return this.#pending.size;
  }

  /** Local ports of the open sockets (tests check that they are random and distinct). */
  localPorts(): number[] {
    const ports: number[] = [];
    for (const list of this.#sockets.values()) {
      for (const s of list) {
        if (s.native && this.#addon) ports.push(this.#addon.localPort(s.native));
        else if (s.dgram && s.ready) ports.push(s.dgram.address().port);
      }
    }
    return ports;
  }

  exchange(request: ExchangeRequest): Promise<ExchangeOutcome> {
    if (this.#closed) return Promise.resolve({ kind: 'error', error: 'resolver closed' });
    const id = this.#freeId();
    if (id === null) return Promise.resolve({ kind: 'error', error: 'no free transaction id' });
    const poolSocket = this.#pickSocket(request.server);
    return new Promise<ExchangeOutcome>((resolve) => {
      const pending: Pending = { id, socket: poolSocket, request, timer: setTimeout(() => this.#finish(pending, { kind: 'timeout' }), request.timeoutMs), resolve };
      this.#pending.set(id, pending);
      poolSocket.outstanding++;
      let query: Buffer;
      try {
        query = request.encode(id);
      } catch (err) {
        this.#finish(pending, { kind: 'error', error: `cannot encode query: ${(err as Error).message}` });
        return;
      }
      if (poolSocket.native) this.#queueSend(poolSocket, query);
      // No per-send callback: a failed send surfaces as a socket error, which fails this socket's
      // queries over to the resolver's retry path (see #onSocketError).
      else if (poolSocket.ready) this.#sendDgram(pending, query);
      else void poolSocket.connected.then((ok) => (ok ? this.#sendDgram(pending, query) : this.#finish(pending, { kind: 'error', error: 'cannot connect the UDP socket' })));
    });
  }

  close(): void {
    this.#closed = true;
    for (const pending of [...this.#pending.values()]) this.#finish(pending, { kind: 'error', error: 'resolver closed' });
    for (const list of this.#sockets.values()) for (const s of list) this.#closeSocket(s);
    this.#sockets.clear();
  }

  /** Ends a query once: the first outcome wins (reply, timeout, error, close). */
  #finish(pending: Pending, outcome: ExchangeOutcome): void {
    if (this.#pending.get(pending.id) !== pending) return;
    clearTimeout(pending.timer);
    this.#pending.delete(pending.id);
    pending.socket.outstanding--;
    pending.resolve(outcome);
  }

  #freeId(): number | null {
    if (this.#pending.size >= 0x10000) return null;
    for (;;) {
      if (this.#idAt === this.#ids.length) {
        randomFillSync(this.#ids);
        this.#idAt = 0;
      }
      const id = this.#ids[this.#idAt++] as number;
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
    const entry = (this.#addon && this.#openNative(server, this.#addon)) || this.#openDgram(server);
    list.push(entry);
    this.#sockets.set(serverKey(server), list);
    return entry;
  }

  /** null when the addon refuses the address (e.g. a scoped IPv6 one): that server gets dgram. */
  #openNative(server: UpstreamServer, addon: UdpBatchAddon): PoolSocket | null {
    // One slot per datagram; anything longer than maxResponseBytes does not fit and is dropped.
    const slotSize = Math.max(1, Math.min(this.#options.maxResponseBytes, 65_535));
    const slots = Buffer.allocUnsafeSlow(slotSize * NATIVE_SLOTS);
    const lens = new Int32Array(NATIVE_SLOTS);
    const entry: PoolSocket = { server, outstanding: 0, connected: Promise.resolve(true), ready: true, closed: false, dgram: null, native: null, queue: [] };
    try {
      entry.native = addon.open(server.host, server.port, slots, lens, slotSize, (count, errno) => {
        if (errno !== 0) return this.#onSocketError(entry, new Error(getSystemErrorName(-errno)));
        for (let i = 0; i < count; i++) {
          const length = lens[i] as number;
          if (length < 0) this.dropped++;
          else this.#onDatagram(entry, slots.subarray(i * slotSize, i * slotSize + length));
        }
      });
    } catch {
      return null;
    }
    return entry;
  }

  #openDgram(server: UpstreamServer): PoolSocket {
    const socket = dgram.createSocket({ type: server.family === 4 ? 'udp4' : 'udp6' });
    let settle: (ok: boolean) => void = () => undefined;
    const entry: PoolSocket = {
      server,
      outstanding: 0,
      connected: new Promise((resolve) => (settle = resolve)),
      ready: false,
      closed: false,
      dgram: socket,
      native: null,
      queue: [],
    };
    socket.on('message', (msg, rinfo) => {
      if (rinfo.port !== server.port || !sameAddress(rinfo.address, server.host)) this.dropped++;
      else this.#onDatagram(entry, msg);
    });
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
    return entry;
  }

  /** A datagram from the right server on `from`: route it by id and size, then check it answers the query. */
  #onDatagram(from: PoolSocket, msg: Buffer): void {
    const id = peekId(msg);
    const pending = id === null ? undefined : this.#pending.get(id);
    if (!pending || pending.socket !== from || msg.length > this.#options.maxResponseBytes) {
      this.dropped++;
      return;
    }
    let message: DecodedMessage;
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
    this.#finish(pending, { kind: 'reply', message });
  }

  #sendDgram(pending: Pending, query: Buffer): void {
    // A socket closed under us (error, close()) throws synchronously: that ends the query, not the process.
    try {
      pending.socket.dgram?.send(query);
    } catch (err) {
      this.#finish(pending, { kind: 'error', error: `send failed: ${(err as Error).message}` });
    }
  }

  #queueSend(entry: PoolSocket, query: Buffer): void {
    if (entry.queue.push(query) === 1) this.#dirty.push(entry);
    if (!this.#flushScheduled) {
      this.#flushScheduled = true;
      // setImmediate runs after the loop's I/O phase: every query started by this turn's replies
      // (and their promise continuations) is queued by then and leaves in one sendmmsg().
      setImmediate(this.#flush);
    }
  }

  readonly #flush = (): void => {
    this.#flushScheduled = false;
    const dirty = this.#dirty;
    this.#dirty = [];
    let retry = false;
    for (const entry of dirty) {
      const queue = entry.queue;
      if (entry.closed || !entry.native || !this.#addon) {
        queue.length = 0;
        continue;
      }
      const sent = this.#addon.send(entry.native, queue, queue.length);
      if (sent === queue.length) {
        queue.length = 0;
        continue;
      }
      const errno = sent < 0 ? -sent : 0;
      if (errno !== 0 && errno !== ERRNO.EAGAIN && errno !== ERRNO.ENOBUFS) {
        queue.length = 0;
        this.#onSocketError(entry, new Error(`send: ${getSystemErrorName(-errno)}`));
        continue;
      }
      // The socket buffer is full: the rest goes out shortly; each query's timeout still bounds it.
      if (sent > 0) queue.splice(0, sent);
      this.#dirty.push(entry);
      retry = true;
    }
    if (retry && !this.#flushScheduled) {
      this.#flushScheduled = true;
      setTimeout(this.#flush, 1);
    }
  };

  #onSocketError(entry: PoolSocket, err: Error): void {
    const list = this.#sockets.get(serverKey(entry.server));
    const i = list?.indexOf(entry) ?? -1;
    if (list && i >= 0) list.splice(i, 1);
    for (const pending of [...this.#pending.values()]) {
      if (pending.socket === entry) this.#finish(pending, { kind: 'error', error: `socket error: ${err.message}` });
    }
    this.#closeSocket(entry);
  }

  #closeSocket(entry: PoolSocket): void {
    if (entry.closed) return;
    entry.closed = true;
    entry.queue.length = 0;
    if (entry.native) this.#addon?.close(entry.native);
    try {
      entry.dgram?.close();
    } catch {
      // already closed
    }
  }
}

function serverKey(server: UpstreamServer): string {
  return `${server.host}|${server.port}`;
}
