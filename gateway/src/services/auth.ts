import type { Db } from 'mongodb';
import { COLLECTIONS, PLANS } from '@dv/contracts';
import { activeKeyById, KeyAuthenticator, KeyRejected, lookupKey, parseKey, type Account, type ApiKeyRecord, type AuthMarks, type Resolution } from '@dv/accounts';
import { ApiError, type AuthAttemptLimiter, type Logger } from '@dv/runtime';
import type { OAuthStore } from '@dv/oauth';

// Bearer-key authentication (spec "Authentication"). The key is found by its public prefix and its
// hash compared in constant time; remembering, revocation marks, the change stream, the negative
// cache and the per-address attempt limit are the shared KeyAuthenticator's (@dv/accounts
// authenticator.ts), which the portfolio API uses too. A revoked key, a deactivated account or a
// plan without API access is refused from the call after the change answers, on every replica.
// An OAuth access token (docs/oauth.md) acts as the key it was made from: it resolves to that key,
// which must still be active, so revoking the key (or the token) refuses the token.
// Only unknown or revoked prefixes are remembered as unknown, never an active key's: its prefix
// is public, and remembering it would let anyone lock its owner out.

export interface Caller {
  account: Account;
  key: ApiKeyRecord;
  mode: 'live' | 'sandbox';
  /** Set when the caller presented an OAuth access token (its stored id) instead of the key. */
  tokenId?: string;
}

export interface AuthOptions {
  db: Db;
  log: Logger;
  upgradeUrl: string;
  /** The console's plan page: what an inactive account's refusal points to. */
  planPageUrl: string;
  cacheTtlMs: number;
  lastUsedThrottleMs: number;
  oauth: OAuthStore;
  marks: AuthMarks;
  /** Per-address metering of credential lookups (also used by the OAuth endpoints). */
  attempts: AuthAttemptLimiter;
  negativeCacheTtlMs: number;
  negativeCacheMaxEntries: number;
}

export class AuthService {
  private readonly opts: AuthOptions;
  private readonly lastUsedWritten = new Map<string, number>();
  readonly keys: KeyAuthenticator<Caller>;
  readonly attempts: AuthAttemptLimiter;

  constructor(opts: AuthOptions) {
    this.opts = opts;
    this.attempts = opts.attempts;
    const { oauth, db } = opts;
    this.keys = new KeyAuthenticator<Caller>({
      db,
      log: opts.log,
      marks: opts.marks,
      cacheTtlMs: opts.cacheTtlMs,
      negativeCacheTtlMs: opts.negativeCacheTtlMs,
      negativeCacheMaxEntries: opts.negativeCacheMaxEntries,
      attempts: opts.attempts,
      // A created key's insert event carries the document, its prefix included (createdKey).
      watch: [{ name: COLLECTIONS.apiKeys.name }, { name: COLLECTIONS.accounts.name }, { name: oauth.tokensCollection, operations: ['delete'] }],
      wellFormed: (p) => oauth.isAccessToken(p) || parseKey(p) !== null,
      negativeKey: (p) => parseKey(p)?.prefix ?? null,
      createdKey: (doc) => (typeof doc.prefix === 'string' ? doc.prefix : null),
      resolve: (p) => (oauth.isAccessToken(p) ? resolveToken(db, oauth, p) : resolveKey(db, p)),
    });
  }

  async start(): Promise<void> {
    await this.keys.start();
  }

  async stop(): Promise<void> {
    await this.keys.stop();
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
    const caller = await this.keys.authenticate(presented, clientIp).catch((err: unknown) => {
      if (!(err instanceof KeyRejected)) throw err;
      if (err.reason === 'token') throw new ApiError('invalid_api_key', 'The access token is not valid: it is wrong, expired or revoked, or the API key it was made from is revoked.');
      throw new ApiError('invalid_api_key', 'The API key is not valid: it is wrong, malformed or revoked.');
    });
    const { account } = caller;
    if (account.status !== 'active') throw new ApiError('account_inactive', `This account is inactive; ${this.opts.planPageUrl} says how to reactivate it.`);
    if (!PLANS[account.plan]?.apiAccess) {
      throw new ApiError('plan_not_entitled', `The ${account.plan} plan has no API access; the API is available on Pro, Business and Enterprise.`, { upgrade_url: this.opts.upgradeUrl });
    }
    this.touch(caller.key._id, Date.now());
    return caller;
  }

  /** last_used_at, at most once per throttle window per key and process; never delays the request. */
  private touch(keyId: string, now: number): void {
    const last = this.lastUsedWritten.get(keyId) ?? 0;
    if (now - last < this.opts.lastUsedThrottleMs) return;
    if (this.lastUsedWritten.size > 10_000) this.lastUsedWritten.clear();
    this.lastUsedWritten.set(keyId, now);
    void this.opts.db
      .collection<ApiKeyRecord>(COLLECTIONS.apiKeys.name)
      .updateOne({ _id: keyId }, { $set: { last_used_at: new Date(now) } })
      .catch((err: Error) => this.opts.log.debug({ err: err.message }, 'last_used_at update failed'));
  }
}

async function resolveKey(db: Db, presented: string): Promise<Resolution<Caller>> {
  const r = await lookupKey(db, presented);
  if (!r.ok) return { ok: false, reason: r.reason, remember: r.reason === 'unknown_prefix' || r.reason === 'revoked' };
  const { account, key } = r.found;
  return { ok: true, value: { account, key, mode: key.mode }, ids: [key._id, account._id] };
}

async function resolveToken(db: Db, oauth: OAuthStore, presented: string): Promise<Resolution<Caller>> {
  const access = await oauth.findAccess(presented);
  const found = access ? await activeKeyById(db, access.key_id) : null;
  if (!access || !found) return { ok: false, reason: 'token' };
  const { account, key } = found;
  return { ok: true, value: { account, key, mode: key.mode, tokenId: access._id }, ids: [key._id, account._id, access._id], expiresAt: access.expires_at.getTime() };
}

