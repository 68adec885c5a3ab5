import { hash } from 'node:crypto';
import type { ChangeStream, Db } from 'mongodb';
import { lookupPortfolioKey, type PortfolioKeyLookup } from '@dv/accounts';
import { COLLECTIONS } from '@dv/contracts';
import { watchCollections, type Logger } from '@dv/runtime';

// Authenticated portfolio keys remembered in process (the gateway's pattern, gateway/src/services/
// auth.ts): two MongoDB reads per call were most of an authenticated call's cost. A change stream
// on portfolio_api_keys and accounts drops a remembered key the moment the key is revoked or
// changed, or its account changes (plan, status), on every replica; without a working change
// stream nothing is remembered. Entries also lapse after ttlMs, and a key's own expiry is checked
// on every call.
//
// One read per key at a time: calls that miss while the key is being read wait for that read (a
// cold cache under 32 connections made ~16 reads per key, each two MongoDB round trips, and the
// first seconds of traffic ran at a fifth of the warm rate). A key still in use near the end of
// its entry is read again in the background, so a busy key never waits for MongoDB. A read that
// started before an invalidation is not remembered (it may have seen the key before its revocation).

// A key used in the last sixth of its entry's life is read again in the background.
const REFRESH_AHEAD_FRACTION = 1 / 6;
// Changes that alter nothing authentication depends on.
const IRRELEVANT_FIELDS = new Set(['last_used_at', 'credits', 'updated_at']);

type ChangeEvent = { documentKey?: { _id?: unknown }; updateDescription?: { updatedFields?: Record<string, unknown>; removedFields?: string[] } };
type Found = Extract<PortfolioKeyLookup, { ok: true }>;

export class PortfolioKeyCache {
  private readonly db: Db;
  private readonly log: Logger;
  private readonly ttlMs: number;
  private readonly refreshAheadMs: number;
  private readonly entries = new Map<string, { found: Found; until: number }>();
  /** Reads in progress by key hash: calls for the same key share one. */
  private readonly reading = new Map<string, Promise<PortfolioKeyLookup>>();
  /** Counts invalidations; `dropped` holds the count at which each key or account id was last dropped while reads were under way. */
  private epoch = 0;
  private readonly dropped = new Map<string, number>();
  private readsUnderWay = 0;
  private stream: ChangeStream | undefined;
  private on = false;
  /** Calls answered from memory / from MongoDB, and the MongoDB lookups made (tests read them). */
  hits = 0;
  misses = 0;
  reads = 0;

  constructor(db: Db, log: Logger, ttlMs: number) {
    this.db = db;
    this.log = log;
    this.ttlMs = ttlMs;
    this.refreshAheadMs = ttlMs * REFRESH_AHEAD_FRACTION;
  }

  /** Opens the invalidation feed; remembering starts only once it is open on the server. */
  async start(): Promise<void> {
    if (this.ttlMs <= 0) return;
    try {
      // One stream for both collections: each open stream costs MongoDB on every write (watchCollections).
      const stream = watchCollections(this.db, [{ name: COLLECTIONS.portfolioApiKeys.name }, { name: COLLECTIONS.accounts.name }]);
      this.stream = stream;
      stream.on('change', (ev) => this.invalidate(ev as ChangeEvent));
      stream.on('error', (err) => {
        this.log.warn({ err: err.message }, 'portfolio key change stream failed; key cache off');
        this.on = false;
        this.forget();
      });
      await stream.tryNext().catch(() => null);
      this.on = true;
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'no change streams; portfolio key cache off');
    }
  }

  async stop(): Promise<void> {
    this.on = false;
    this.forget();
    await this.stream?.close().catch(() => undefined);
  }

  private invalidate(ev: ChangeEvent): void {
    const changed = ev.updateDescription ? [...Object.keys(ev.updateDescription.updatedFields ?? {}), ...(ev.updateDescription.removedFields ?? [])] : null;
    if (changed && changed.length > 0 && changed.every((f) => IRRELEVANT_FIELDS.has(f))) return;
    const id = String(ev.documentKey?._id ?? '');
    this.epoch++;
    if (this.readsUnderWay > 0) this.dropped.set(id, this.epoch);
    // Calls from now on read afresh rather than join a read that may predate the change.
    this.reading.clear();
    for (const [k, e] of this.entries) if (e.found.key._id === id || e.found.account._id === id) this.entries.delete(k);
  }

  private forget(): void {
    this.epoch++;
    this.reading.clear();
    this.dropped.clear();
    this.entries.clear();
  }

  /** Whether the key or its account was dropped after `epoch` (a read begun then may have seen it before the change). */
  private droppedSince(found: Found, epoch: number): boolean {
    return (this.dropped.get(found.key._id) ?? 0) > epoch || (this.dropped.get(found.account._id) ?? 0) > epoch;
  }

  /** lookupPortfolioKey, answered from memory while the feed runs and the entry is fresh. */
  async lookup(presented: string, now = new Date()): Promise<PortfolioKeyLookup> {
    const id = hash('sha256', presented, 'base64');
    const e = this.on ? this.entries.get(id) : undefined;
    const t = now.getTime();
    if (e && e.until > t) {
      if (e.found.key.expires_at !== null && e.found.key.expires_at <= now) return { ok: false, reason: 'expired' };
      this.hits++;
      // A failed background read leaves the entry to lapse; the call after that reads in the foreground.
      if (e.until - t < this.refreshAheadMs && !this.reading.has(id)) void this.read(id, presented, now).catch(() => undefined);
      return e.found;
    }
    this.misses++;
    return this.read(id, presented, now);
  }

  /** lookupPortfolioKey once per key at a time; remembered unless an invalidation came meanwhile. */
  private read(id: string, presented: string, now: Date): Promise<PortfolioKeyLookup> {
    const pending = this.reading.get(id);
    if (pending) return pending;
    const epoch = this.epoch;
    this.reads++;
    this.readsUnderWay++;
    const p = lookupPortfolioKey(this.db, presented, now)
      .then((found) => {
        if (this.on) {
          if (!found.ok) this.entries.delete(id);
          else if (!this.droppedSince(found, epoch)) {
            if (this.entries.size > 10_000 && !this.entries.has(id)) this.entries.clear();
            this.entries.set(id, { found, until: now.getTime() + this.ttlMs });
          }
        }
        return found;
      })
      .finally(() => {
        if (this.reading.get(id) === p) this.reading.delete(id);
        if (--this.readsUnderWay === 0) this.dropped.clear();
      });
    this.reading.set(id, p);
    return p;
  }
}
