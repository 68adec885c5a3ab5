import { createHash } from 'node:crypto';
import type { ChangeStream, Db } from 'mongodb';
import { lookupPortfolioKey, type PortfolioKeyLookup } from '@dv/accounts';
import { COLLECTIONS } from '@dv/contracts';
import type { Logger } from '@dv/runtime';

// Authenticated portfolio keys remembered in process (the gateway's pattern, gateway/src/services/
// auth.ts): two MongoDB reads per call were most of an authenticated call's cost. A change stream
// on portfolio_api_keys and accounts drops a remembered key the moment the key is revoked or
// changed, or its account changes (plan, status), on every replica; without a working change
// stream nothing is remembered. Entries also lapse after ttlMs, and a key's own expiry is checked
// on every call.

// Changes that alter nothing authentication depends on.
const IRRELEVANT_FIELDS = new Set(['last_used_at', 'credits', 'updated_at']);

type ChangeEvent = { documentKey?: { _id?: unknown }; updateDescription?: { updatedFields?: Record<string, unknown>; removedFields?: string[] } };
type Found = Extract<PortfolioKeyLookup, { ok: true }>;

export class PortfolioKeyCache {
  private readonly db: Db;
  private readonly log: Logger;
  private readonly ttlMs: number;
  private readonly entries = new Map<string, { found: Found; until: number }>();
  private streams: ChangeStream[] = [];
  private on = false;
  /** Calls answered from memory / from MongoDB (tests and the benchmark read them). */
  hits = 0;
  misses = 0;

  constructor(db: Db, log: Logger, ttlMs: number) {
    this.db = db;
    this.log = log;
    this.ttlMs = ttlMs;
  }

  /** Opens the invalidation feed; remembering starts only once it is open on the server. */
  async start(): Promise<void> {
    if (this.ttlMs <= 0) return;
    try {
      this.streams = [this.db.collection(COLLECTIONS.portfolioApiKeys.name).watch([], {}), this.db.collection(COLLECTIONS.accounts.name).watch([], {})];
      for (const s of this.streams) {
        s.on('change', (ev) => this.invalidate(ev as ChangeEvent));
        s.on('error', (err) => {
          this.log.warn({ err: err.message }, 'portfolio key change stream failed; key cache off');
          this.on = false;
          this.entries.clear();
        });
      }
      await Promise.all(this.streams.map((s) => s.tryNext().catch(() => null)));
      this.on = true;
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'no change streams; portfolio key cache off');
    }
  }

  async stop(): Promise<void> {
    this.on = false;
    this.entries.clear();
    await Promise.all(this.streams.map((s) => s.close().catch(() => undefined)));
  }

  private invalidate(ev: ChangeEvent): void {
    const changed = ev.updateDescription ? [...Object.keys(ev.updateDescription.updatedFields ?? {}), ...(ev.updateDescription.removedFields ?? [])] : null;
    if (changed && changed.length > 0 && changed.every((f) => IRRELEVANT_FIELDS.has(f))) return;
    const id = String(ev.documentKey?._id ?? '');
    for (const [k, e] of this.entries) if (e.found.key._id === id || e.found.account._id === id) this.entries.delete(k);
  }

  /** lookupPortfolioKey, answered from memory while the feed runs and the entry is fresh. */
  async lookup(presented: string, now = new Date()): Promise<PortfolioKeyLookup> {
    const id = createHash('sha256').update(presented).digest('base64');
    const e = this.on ? this.entries.get(id) : undefined;
    if (e && e.until > now.getTime()) {
      if (e.found.key.expires_at !== null && e.found.key.expires_at <= now) return { ok: false, reason: 'expired' };
      this.hits++;
      return e.found;
    }
    this.misses++;
    const found = await lookupPortfolioKey(this.db, presented, now);
    if (found.ok && this.on) {
      if (this.entries.size > 10_000) this.entries.clear();
      this.entries.set(id, { found, until: now.getTime() + this.ttlMs });
    }
    return found;
  }
}
