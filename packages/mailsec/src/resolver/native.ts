// The optional udp_batch addon (packages/mailsec/native): connected UDP sockets drained with
// recvmmsg() and written with sendmmsg(), one JS callback per batch of datagrams. It is built by
// `npm ci` when a C compiler and the Node headers are at hand; when it is missing or cannot load,
// the pool uses node:dgram, which behaves the same, only slower (udp-pool.ts).
import { createRequire } from 'node:module';

/** An open socket: an opaque handle owned by the addon. */
export type NativeHandle = { readonly __udpBatch: unique symbol };

export interface UdpBatchAddon {
  supported: true;
  /**
   * A UDP socket on a random ephemeral port, connect()ed to host:port (a numeric address; throws
   * otherwise). `slots` is `lens.length` slots of `slotSize` bytes. On each batch the addon calls
   * `onRecv(count, 0)`, after writing each datagram's length to `lens[0..count)` (-1: dropped,
   * larger than its slot or from another address); `onRecv(0, errno)` on a socket error.
   * Slots are reused by the next batch: read them during the callback only.
   */
  open(host: string, port: number, slots: Buffer, lens: Int32Array, slotSize: number, onRecv: (count: number, errno: number) => void): NativeHandle;
  /** Sends `queries[0..count)` with sendmmsg(); returns how many left, or -errno if none did. */
  send(handle: NativeHandle, queries: readonly Buffer[], count: number): number;
  close(handle: NativeHandle): void;
  localPort(handle: NativeHandle): number;
}

export const DEFAULT_ADDON_PATH = new URL('../../native/build/Release/udp_batch.node', import.meta.url).pathname;

const loaded = new Map<string, UdpBatchAddon | null>();

/** The addon, or null when it is not built, does not load, or is not supported on this OS. */
export function loadUdpBatch(path: string = DEFAULT_ADDON_PATH): UdpBatchAddon | null {
  if (loaded.has(path)) return loaded.get(path) ?? null;
  let addon: UdpBatchAddon | null = null;
  try {
    const mod = createRequire(import.meta.url)(path) as Partial<UdpBatchAddon> | undefined;
    if (mod?.supported === true && typeof mod.open === 'function' && typeof mod.send === 'function') addon = mod as UdpBatchAddon;
  } catch {
    addon = null;
  }
  loaded.set(path, addon);
  return addon;
}

/** errno values the pool tells apart (Linux numbering: the addon exists only there). */
export const ERRNO = { EAGAIN: 11, ENOBUFS: 105, EINTR: 4 } as const;
