import { monotonicFactory } from 'ulid';

// Every id the platform hands out is `<prefix>_<ULID>`: the ULID's 48-bit millisecond time makes ids
// sort by creation time (cursors and Mongo _id order stay chronological), and the monotonic factory
// keeps ids made in the same millisecond strictly increasing within a process.
export const ID_PREFIXES = {
  account: 'acc',
  apiKey: 'key',
  job: 'job',
  item: 'itm',
  event: 'evt',
  ledger: 'led',
  webhook: 'whk',
  scan: 'scn',
  request: 'req',
  /** One OAuth authorization (its code and every token refreshed from it). */
  grant: 'grt',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

const nextUlid = monotonicFactory();

export function newId(kind: IdKind, nowMs: number = Date.now()): string {
  return `${ID_PREFIXES[kind]}_${nextUlid(nowMs).toLowerCase()}`;
}

const ULID_BODY = /^[0-9a-hjkmnp-tv-z]{26}$/;

/** True when `id` is a well-formed id of the given kind (used to reject forged ids before any lookup). */
export function isId(kind: IdKind, id: string): boolean {
  const prefix = `${ID_PREFIXES[kind]}_`;
  return id.startsWith(prefix) && ULID_BODY.test(id.slice(prefix.length));
}

/** Milliseconds since the epoch encoded in an id's ULID time part. */
export function idTimeMs(id: string): number {
  const body = id.slice(id.indexOf('_') + 1, id.indexOf('_') + 11).toUpperCase();
  const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
  let ms = 0;
  for (const ch of body) ms = ms * 32 + alphabet.indexOf(ch);
  return ms;
}
