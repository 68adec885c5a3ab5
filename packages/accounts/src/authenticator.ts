import { createHash } from 'node:crypto';
import type { ChangeStream, Db } from 'mongodb';
import { NegativeCache, watchCollections, type AuthAttemptLimiter, type Logger, type WatchedCollection } from '@dv/runtime';
import type { AuthMarks } from './auth-marks.ts';

// The one bearer-credential authenticator of the verification and portfolio APIs; each API gives
// it how to read a credential from MongoDB (`resolve`) and renders its refusals in its own errors.
// - Remembered in process: two MongoDB reads per call were most of an authenticated call's cost.
//   A remembered credential is believed only while no revocation mark (auth-marks.ts) on any of
//   its ids is as recent as the moment it was read, checked on every call: a revocation holds on
//   every replica from the moment it answers. A change stream on the watched collections also
//   drops entries (it catches writes made outside the paths that mark); without a running stream
//   nothing is remembered.
// - One read per credential at a time: calls that miss together share it (a cold cache under 32
//   connections made ~16 reads per key); a call that joins a read begun before it arrived checks
//   the marks as for a remembered entry. A credential in use near the end of its entry is read
//   again in the background, so a busy key never waits for MongoDB.
// - Abuse before authentication: a MongoDB read is metered per client address (AuthAttemptLimiter,
//   failures cost more), and a credential found unknown or revoked is remembered briefly (the
//   service decides which: never an active key's public prefix) while the stream runs.

/** What reading a presented credential found. `ids` (key, account, token): a mark on any revokes it. */
export type Resolution<T> = { ok: true; value: T; ids: string[]; expiresAt?: number | null } | { ok: false; reason: string; remember?: boolean };

/** The credential is refused (the API answers 401); `reason` is the resolver's, or `malformed`/`unknown`. */
export class KeyRejected extends Error {
  readonly reason: string;

  constructor(reason: string) {
    super(`credential refused: ${reason}`);
    this.name = 'KeyRejected';
    this.reason = reason;
  }
}

export interface KeyAuthenticatorOptions<T> {
  db: Db;
  log: Logger;
  marks: AuthMarks;
  /** How long a credential is remembered at most; 0: never. */
  cacheTtlMs: number;
  negativeCacheTtlMs: number;
  negativeCacheMaxEntries: number;
  attempts: AuthAttemptLimiter;
  /** Collections whose changes drop remembered credentials. */
  watch: readonly WatchedCollection[];
  /** Refused at once, without a lookup or an attempt point. */
  wellFormed: (presented: string) => boolean;
  /** What the negative cache remembers of a presented credential (null: never remembered). */
  negativeKey: (presented: string) => string | null;
  /** The same for a credential just created (a change event's document), which then works at once. */
  createdKey: (doc: Record<string, unknown>) => string | null;
  resolve: (presented: string, now: Date) => Promise<Resolution<T>>;
}

// Changes that alter nothing authentication depends on.
const IRRELEVANT_FIELDS = new Set(['credits', 'updated_at', 'last_used_at']);
// A credential used in the last sixth of its entry's life is read again in the background.
const REFRESH_AHEAD_FRACTION = 1 / 6;
const MAX_ENTRIES = 10_000;

type ChangeEvent = { documentKey?: { _id?: unknown }; fullDocument?: Record<string, unknown>; updateDescription?: { updatedFields?: Record<string, unknown>; removedFields?: string[] } };
interface Entry<T> {
  value: T;
  ids: string[];
  /** Redis's clock (microseconds) before the MongoDB read: a mark at or after it revokes the entry. */
  readAt: number;
  until: number;
}
type Read<T> = { ok: true; entry: Entry<T> } | { ok: false; reason: string };

export class KeyAuthenticator<T> {
  private readonly opts: KeyAuthenticatorOptions<T>;
  private readonly entries = new Map<string, Entry<T>>();
  private readonly reading = new Map<string, Promise<Read<T>>>();
  private readonly negative: NegativeCache;
  /** Bumped by every invalidation: a read begun before one is not remembered. */
  private generation = 0;
  private stream: ChangeStream | undefined;
  private on = false;
  /** Calls answered from memory, calls that were not, MongoDB reads made (tests and metrics). */
  hits = 0;
  misses = 0;
  reads = 0;

  constructor(opts: KeyAuthenticatorOptions<T>) {
    this.opts = opts;
    this.negative = new NegativeCache({ ttlMs: opts.negativeCacheTtlMs, maxEntries: opts.negativeCacheMaxEntries });
  }

  get attempts(): AuthAttemptLimiter {
    return this.opts.attempts;
  }

  /** Opens the invalidation feed; remembering starts only once it is open on the server. */
  async start(): Promise<void> {
    if (this.opts.cacheTtlMs <= 0) return;
    try {
      // One stream for every collection: each open stream costs MongoDB on every write.
      const stream = watchCollections(this.opts.db, this.opts.watch);
      this.stream = stream;
      stream.on('change', (ev) => this.invalidate(ev as ChangeEvent));
      stream.on('error', (err) => {
        this.opts.log.warn({ err: err.message }, 'auth change stream failed; key cache off');
        this.on = false;
        this.forget();
      });
      await stream.tryNext().catch(() => null);
      this.on = true;
    } catch (err) {
      this.opts.log.warn({ err: (err as Error).message }, 'no change streams; key cache off');
    }
  }

  async stop(): Promise<void> {
    this.on = false;
    this.forget();
    await this.stream?.close().catch(() => undefined);
  }

  private forget(): void {
    this.generation++;
    this.entries.clear();
    this.reading.clear();
    this.negative.clear();
  }

  private invalidate(ev: ChangeEvent): void {
    const created = ev.fullDocument ? this.opts.createdKey(ev.fullDocument) : null;
    if (created !== null) this.negative.delete(created);
    const u = ev.updateDescription;
    const changed = u ? [...Object.keys(u.updatedFields ?? {}), ...(u.removedFields ?? [])] : null;
    if (changed && changed.length > 0 && changed.every((f) => IRRELEVANT_FIELDS.has(f))) return;
    const id = String(ev.documentKey?._id ?? '');
    this.generation++;
    this.reading.clear();
    for (const [k, e] of this.entries) if (e.ids.includes(id)) this.entries.delete(k);
  }

  /**
   * The credential's value, or KeyRejected; with `clientIp`, a MongoDB read is metered for that
   * address first and may throw TooManyAuthAttempts (each API answers both in its own shape).
   */
  async authenticate(presented: string, clientIp?: string): Promise<T> {
    if (!this.opts.wellFormed(presented)) throw new KeyRejected('malformed');
    const id = createHash('sha256').update(presented).digest('base64');
    const now = Date.now();
    const e = this.on ? this.entries.get(id) : undefined;
    if (e && e.until > now && (await this.believed(e))) {
      this.hits++;
      if (e.until - now < this.opts.cacheTtlMs * REFRESH_AHEAD_FRACTION && !this.reading.has(id)) void this.load(id, presented).catch(() => undefined);
      return e.value;
    }
    if (e && this.entries.get(id) === e) this.entries.delete(id);
    this.misses++;
    if (clientIp !== undefined) await this.opts.attempts.attempt(clientIp);
    const r = await this.read(id, presented);
    if (r.ok) return r.entry.value;
    if (clientIp !== undefined) await this.opts.attempts.failed(clientIp);
    throw new KeyRejected(r.reason);
  }

  /** No mark on the entry's ids since it was read. */
  private async believed(e: Entry<T>): Promise<boolean> {
    const { marks } = await this.opts.marks.read(e.ids);
    return marks.every((m) => m < e.readAt);
  }

  /** A read under way for the same credential when it can be trusted for this call, else one of our own. */
  private async read(id: string, presented: string): Promise<Read<T>> {
    const nk = this.opts.negativeKey(presented);
    if (this.on && nk !== null && this.negative.has(nk)) return { ok: false, reason: 'unknown' };
    const pending = this.reading.get(id);
    if (pending) {
      const shared = await pending;
      // It may have begun before a revocation that answered before this call arrived.
      if (!shared.ok || (await this.believed(shared.entry))) return shared;
    }
    return this.load(id, presented);
  }

  private load(id: string, presented: string): Promise<Read<T>> {
    const generation = this.generation;
    const negativeMark = this.negative.mark;
    this.reads++;
    const p = (async (): Promise<Read<T>> => {
      // Only a remembered entry needs the read time; with the cache off a call reads MongoDB alone.
      const readAt = this.on ? await this.opts.marks.now() : 0;
      const r = await this.opts.resolve(presented, new Date());
      if (!r.ok) {
        this.entries.delete(id);
        const nk = this.opts.negativeKey(presented);
        if (this.on && r.remember && nk !== null) this.negative.add(nk, negativeMark);
        return { ok: false, reason: r.reason };
      }
      const entry: Entry<T> = { value: r.value, ids: r.ids, readAt, until: Math.min(Date.now() + this.opts.cacheTtlMs, r.expiresAt ?? Infinity) };
      if (this.on && generation === this.generation) {
        if (this.entries.size >= MAX_ENTRIES && !this.entries.has(id)) this.entries.clear();
        this.entries.set(id, entry);
      }
      return { ok: true, entry };
    })().finally(() => {
      if (this.reading.get(id) === p) this.reading.delete(id);
    });
    this.reading.set(id, p);
    return p;
  }
}
