import { randomFillSync } from 'node:crypto';
import { encodeTime } from 'ulid';

// Every id the platform hands out is `<prefix>_<ULID>`: the ULID's 48-bit millisecond time makes ids
// sort by creation time (cursors and Mongo _id order stay chronological), and within one process ids
// made in the same millisecond still increase strictly. ulid's monotonicFactory got that order by
// adding 1 to the previous random part, so anyone holding one id could compute the next (a
// neighbour's job id, within the same millisecond). Here each same-millisecond id adds a random
// step of 2^32..2^48 instead: the order stays, the next id is a 1-in-2^47 guess, and a fresh
// millisecond draws a fresh 80-bit random part as before.
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
  /** A portfolio export task (its id is part of the signed file link). */
  export: 'exp',
  /** A person who signs in to the web pages (by email); API keys stay the machine credential. */
  person: 'per',
  /** A person's place in an account: owner or member. */
  membership: 'mem',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';
const TWO_32 = 2 ** 32;
const TWO_40 = 2 ** 40;

// Random words come from one buffer refilled at a time (a 25,000-item job makes 25,000 ids at once).
const pool = new Uint32Array(512);
let poolAt = pool.length;
function random32(): number {
  if (poolAt === pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  return pool[poolAt++]!;
}

/** Eight Crockford characters of a 40-bit number (two of them make the 80-bit random part). */
function encode40(n: number): string {
  let out = '';
  for (let i = 0; i < 8; i++) {
    out = CROCKFORD[n % 32]! + out;
    n = Math.floor(n / 32);
  }
  return out;
}

// The random part as two 40-bit halves (exact in doubles); `hi` starts below 2^39 so the steps of
// one millisecond (at most 2^8 carried into `hi` each) cannot overflow it in practice (2^31 ids).
let lastMs = -1;
let hi = 0;
let lo = 0;

function nextBody(nowMs: number): string {
  if (nowMs > lastMs) {
    lastMs = nowMs;
    hi = (random32() & 0x7f) * TWO_32 + random32();
    lo = (random32() & 0xff) * TWO_32 + random32();
  } else {
    // Same millisecond, or the clock stepped back (then the last time is kept, as ulid does).
    const step = ((random32() & 0xffff) || 1) * TWO_32 + random32();
    const sum = lo + step;
    hi += Math.floor(sum / TWO_40);
    lo = sum % TWO_40;
    if (hi >= TWO_40) throw new Error('id random part exhausted within one millisecond');
  }
  return encodeTime(lastMs, 10).toLowerCase() + encode40(hi) + encode40(lo);
}

export function newId(kind: IdKind, nowMs: number = Date.now()): string {
  return `${ID_PREFIXES[kind]}_${nextBody(nowMs)}`;
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
