// One id per HTTP request, carried through everything the request causes: echoed in
// the response, on every log line written while handling it (logger.ts mixin), in the header of
// every NATS message it publishes (JetStreamPublisher), and from there on the scheduler's and the
// probe node's log lines about that work. An operator can then follow one customer call across
// services with one grep.
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { headers as natsHeaders, type MsgHdrs } from '@nats-io/transport-node';

export const REQUEST_ID_HEADER = 'X-Request-Id';

/** An incoming id is kept only when it is short and plain: no CR/LF or spaces to forge log lines or headers. */
const SANE_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** A NATS message may carry several (one session probes items of several requests), comma-separated. */
const SANE_LIST = /^[A-Za-z0-9._:-]{1,128}(,[A-Za-z0-9._:-]{1,128}){0,31}$/;

const context = new AsyncLocalStorage<string>();

/** The caller's X-Request-Id when it is sane, else undefined (a fresh one is made then). */
export function saneRequestId(value: unknown): string | undefined {
  return typeof value === 'string' && SANE_ID.test(value) ? value : undefined;
}

export function newRequestId(): string {
  return randomUUID();
}

/** The id of the request whose work is running now (AsyncLocalStorage), if any. */
export function currentRequestId(): string | undefined {
  return context.getStore();
}

/** Runs `fn` (and everything it starts) as work of request `id`; without an id, as it is. */
export function withRequestId<T>(id: string | undefined, fn: () => T): T {
  return id ? context.run(id, fn) : fn();
}

/** The request id(s) a NATS message carries, when sane. */
export function requestIdOf(headers: MsgHdrs | undefined): string | undefined {
  const value = headers?.get(REQUEST_ID_HEADER);
  return value && SANE_LIST.test(value) ? value : undefined;
}

/** NATS headers carrying these request ids (duplicates and gaps dropped, at most 32), or undefined. */
export function requestIdHeaders(ids: ReadonlyArray<string | undefined>, into?: MsgHdrs): MsgHdrs | undefined {
  const unique = [...new Set(ids.flatMap((id) => (id ? id.split(',') : [])))].slice(0, 32);
  if (unique.length === 0) return into;
  const h = into ?? natsHeaders();
  h.set(REQUEST_ID_HEADER, unique.join(','));
  return h;
}
