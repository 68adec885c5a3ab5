import { createHash } from 'node:crypto';
import type { ChangeStream, Db } from 'mongodb';
import { COLLECTIONS, PLANS } from '@dv/contracts';
import { activeKeyById, lookupKey, parseKey, type Account, type ApiKeyRecord } from '@dv/accounts';
import { ApiError, NegativeCache, watchCollections, type AuthAttemptLimiter, type Logger } from '@dv/runtime';
import type { OAuthStore } from '@dv/oauth';

// Bearer-key authentication (spec "Authentication"). The key is found by its public prefix and its
// hash compared in constant time (@dv/accounts). Authenticated keys are remembered briefly in
// process, because two MongoDB reads per request would be most of a request's cost; a change
// stream on api_keys and accounts drops a remembered key the moment it is revoked or its account
// changes, and without a working change stream nothing is remembered.
// An OAuth access token (docs/oauth.md) acts as the key it was made from: it resolves to that key,
// which must still be active, so revoking the key (or the token) refuses the token at once.
// Abuse before authentication (docs/gateway.md): a lookup in MongoDB is metered per client address
// (AuthAttemptLimiter, failures cost more), and a prefix found unknown or revoked is remembered for
// a few seconds, only while the change stream runs: it drops the prefix the moment a key with it is
// created or changed. An active key's prefix is never remembered (it is public; that would let
// anyone lock its owner out).

export interface Caller {
  account: Account;
  key: ApiKeyRecord;
  mode: 'live' | 'sandbox';
  /** Set when the caller presented an OAuth access token (its stored id) instead of the key. */
  tokenId?: string;
}

const IRRELEVANT_FIELDS = new Set(['credits', 'updated_at', 'last_used_at']);

type ChangeEvent = { documentKey?: { _id?: unknown }; fullDocument?: { prefix?: unknown }; updateDescription?: { updatedFields?: Record<string, unknown>; removedFields?: string[] } };

interface Entry {
  caller: Caller;
  expiresAt: number;
}

export interface AuthOptions {
  db: Db;
  log: Logger;
  upgradeUrl: string;
  cacheTtlMs: number;
  lastUsedThrottleMs: number;
  oauth: OAuthStore;
  /** Per-address metering of credential lookups (also used by the OAuth endpoints). */
  attempts: AuthAttemptLimiter;
  negativeCacheTtlMs: number;
  negativeCacheMaxEntries: number;
}

export class AuthService {
  private readonly opts: AuthOptions;
  private readonly cache = new Map<string, Entry>();
  private readonly lastUsedWritten = new Map<string, number>();
  private readonly unknownPrefixes: NegativeCache;
  private stream: ChangeStream | undefined;
  private cacheOn = false;
  readonly attempts: AuthAttemptLimiter;

  constructor(opts: AuthOptions) {
    this.opts = opts;
    this.attempts = opts.attempts;
    this.unknownPrefixes = new NegativeCache({ ttlMs: opts.negativeCacheTtlMs, maxEntries: opts.negativeCacheMaxEntries });
  }

  /** Starts the invalidation feed; remembering keys is switched on only once it runs. */
  async start(): Promise<void> {
    if (this.opts.cacheTtlMs <= 0) return;
    try {
      // One stream for the three collections (each open stream costs MongoDB on every write). A
      // created key's insert event carries the document, its prefix included (invalidate).
      const stream = watchCollections(this.opts.db, [{ name: COLLECTIONS.apiKeys.name }, { name: COLLECTIONS.accounts.name }, { name: this.opts.oauth.tokensCollection, operations: ['delete'] }]);
      this.stream = stream;
      stream.on('change', (ev) => this.invalidate(ev as ChangeEvent));
      stream.on('error', (err) => {
        // Fail safe: no invalidation feed means no remembering.
        this.opts.log.warn({ err: err.message }, 'auth change stream failed; key cache off');
        this.cacheOn = false;
        this.cache.clear();
        this.unknownPrefixes.clear();
      });
      // Wait for the stream to be open on the server, so no change after this point is missed.
      await stream.tryNext().catch(() => null);
      this.cacheOn = true;
    } catch (err) {
      this.opts.log.warn({ err: (err as Error).message }, 'no change streams; key cache off');
    }
  }

  async stop(): Promise<void> {
    this.cacheOn = false;
    await this.stream?.close().catch(() => undefined);
  }

  private invalidate(ev: ChangeEvent): void {
    // A key created (or changed) with a prefix remembered as unknown works from this moment on.
    const prefix = ev.fullDocument?.prefix;
    if (typeof prefix === 'string') this.unknownPrefixes.delete(prefix);
    // Credit movements and last_used_at touches change nothing authentication depends on.
    const changed = ev.updateDescription ? [...Object.keys(ev.updateDescription.updatedFields ?? {}), ...(ev.updateDescription.removedFields ?? [])] : null;
    if (changed && changed.length > 0 && changed.every((f) => IRRELEVANT_FIELDS.has(f))) return;
    const id = String(ev.documentKey?._id ?? '');
    for (const [k, e] of this.cache) if (e.caller.key._id === id || e.caller.account._id === id || e.caller.tokenId === id) this.cache.delete(k);
  }

  /**
   * Resolves the caller or throws the spec's 401/403. With `clientIp`, a lookup in MongoDB is
   * metered for that address first and may throw TooManyAuthAttempts (each surface answers it in
   * its own error shape); a remembered key is not metered.
   */
  async authenticate(header: string | undefined, clientIp?: string): Promise<Caller> {
    if (!header || !header.trim()) throw new ApiError('missing_api_key', 'Send your API key as "Authorization: Bearer <API_KEY>".');
    const m = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
    if (!m) throw new ApiError('missing_api_key', 'The Authorization header must be "Bearer <API_KEY>" (or an OAuth access token).');
    const presented = m[1]!;
    const cacheKey = createHash('sha256').update(presented).digest('base64');
    const now = Date.now();
    let caller = this.cacheOn ? this.cache.get(cacheKey) : undefined;
    if (caller && caller.expiresAt <= now) {
      this.cache.delete(cacheKey);
      caller = undefined;
    }
    let resolved = caller?.caller;
    if (!resolved) {
      let expiresAt = now + this.opts.cacheTtlMs;
      const token = this.opts.oauth.isAccessToken(presented);
      // A malformed key is refused without a lookup, so it costs no point.
      if (!token && !parseKey(presented)) throw invalidKey();
      if (clientIp !== undefined) await this.attempts.attempt(clientIp);
      try {
        if (token) {
          const access = await this.opts.oauth.findAccess(presented);
          const found = access ? await activeKeyById(this.opts.db, access.key_id) : null;
          if (!access || !found) throw new ApiError('invalid_api_key', 'The access token is not valid: it is wrong, expired or revoked, or the API key it was made from is revoked.');
          resolved = { account: found.account, key: found.key, mode: found.key.mode, tokenId: access._id };
          expiresAt = Math.min(expiresAt, access.expires_at.getTime());
        } else {
          resolved = await this.lookup(presented);
        }
      } catch (err) {
        if (clientIp !== undefined && err instanceof ApiError && err.code === 'invalid_api_key') await this.attempts.failed(clientIp);
        throw err;
      }
      if (this.cacheOn) {
        if (this.cache.size > 10_000) this.cache.clear();
        this.cache.set(cacheKey, { caller: resolved, expiresAt });
      }
    }
    const { account } = resolved;
    if (account.status !== 'active') throw new ApiError('account_inactive', 'This account is inactive; contact support or reactivate it in the dashboard.');
    if (!PLANS[account.plan]?.apiAccess) {
      throw new ApiError('plan_not_entitled', `The ${account.plan} plan has no API access; the API is available on Pro, Business and Enterprise.`, { upgrade_url: this.opts.upgradeUrl });
    }
    this.touch(resolved.key._id, now);
    return resolved;
  }

  /** A key from MongoDB, unless its prefix is remembered as unknown or revoked. */
  private async lookup(presented: string): Promise<Caller> {
    const prefix = parseKey(presented)?.prefix ?? '';
    if (this.cacheOn && this.unknownPrefixes.has(prefix)) throw invalidKey();
    const mark = this.unknownPrefixes.mark;
    const r = await lookupKey(this.opts.db, presented);
    if (r.ok) return { account: r.found.account, key: r.found.key, mode: r.found.key.mode };
    if (this.cacheOn && (r.reason === 'unknown_prefix' || r.reason === 'revoked')) this.unknownPrefixes.add(prefix, mark);
    throw invalidKey();
  }

  /** last_used_at, at most once per throttle window per key and process; never delays the request. */
  private touch(keyId: string, now: number): void {
    const last = this.lastUsedWritten.get(keyId) ?? 0;
    if (now - last < this.opts.lastUsedThrottleMs) return;
    this.lastUsedWritten.set(keyId, now);
    void this.opts.db
      .collection<ApiKeyRecord>(COLLECTIONS.apiKeys.name)
      .updateOne({ _id: keyId }, { $set: { last_used_at: new Date(now) } })
      .catch((err: Error) => this.opts.log.debug({ err: err.message }, 'last_used_at update failed'));
  }
}

function invalidKey(): ApiError {
  return new ApiError('invalid_api_key', 'The API key is not valid: it is wrong, malformed or revoked.');
}
