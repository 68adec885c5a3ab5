import { createHash, randomBytes } from 'node:crypto';
import type { Collection, Db } from 'mongodb';
import { newId, type CollectionDef } from '@dv/contracts';

// Free keys and the pending email verifications that lead to them, in MongoDB. Neither a key nor a
// verification token is ever stored: only its SHA-256. Both secrets are 256 random bits, so a plain
// hash is enough (no salt or slow hash needed: there is nothing to brute-force).

export const FREE_KEY_PREFIX = 'dk_free_';

/** lookup's own collections; applied at start like the platform's (ensureCollections). */
export const LOOKUP_COLLECTIONS = {
  keyRequests: {
    name: 'lookup_key_requests',
    indexes: [
      { key: { token_hash: 1 }, name: 'token_hash', unique: true },
      // MongoDB drops a request once its link has expired; used requests go the same way.
      { key: { expires_at: 1 }, name: 'ttl_expires_at', expireAfterSeconds: 0 },
    ],
  },
  freeKeys: {
    name: 'lookup_free_keys',
    indexes: [
      { key: { key_hash: 1 }, name: 'key_hash', unique: true },
      { key: { owner: 1, created_at: -1 }, name: 'owner_created' },
    ],
  },
} as const satisfies Record<string, CollectionDef>;

export interface KeyRequestDoc {
  _id: string;
  email: string;
  owner: string;
  token_hash: string;
  created_at: Date;
  expires_at: Date;
  used_at: Date | null;
}

export interface FreeKeyDoc {
  _id: string;
  key_hash: string;
  /** SHA-256 of the lower-cased email: the quota subject, so a re-issued key keeps the day's count. */
  owner: string;
  email: string;
  tier: 'free';
  created_at: Date;
  revoked_at: Date | null;
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export function ownerOf(email: string): string {
  return sha256(email.trim().toLowerCase());
}

export class FreeKeyStore {
  private readonly requests: Collection<KeyRequestDoc>;
  private readonly keys: Collection<FreeKeyDoc>;
  private readonly now: () => number;

  constructor(db: Db, now: () => number = Date.now) {
    this.requests = db.collection<KeyRequestDoc>(LOOKUP_COLLECTIONS.keyRequests.name);
    this.keys = db.collection<FreeKeyDoc>(LOOKUP_COLLECTIONS.freeKeys.name);
    this.now = now;
  }

  /** Stores a pending request; returns the token for the link (the only copy). */
  async createRequest(email: string, ttlMs: number): Promise<{ id: string; token: string; expiresAt: Date }> {
    const token = randomBytes(32).toString('base64url');
    const nowMs = this.now();
    const doc: KeyRequestDoc = {
      _id: newId('request', nowMs),
      email,
      owner: ownerOf(email),
      token_hash: sha256(token),
      created_at: new Date(nowMs),
      expires_at: new Date(nowMs + ttlMs),
      used_at: null,
    };
    await this.requests.insertOne(doc);
    return { id: doc._id, token, expiresAt: doc.expires_at };
  }

  async deleteRequest(id: string): Promise<void> {
    await this.requests.deleteOne({ _id: id });
  }

  /** Whether a token is unused and unexpired, without spending it (the confirmation page's GET). */
  async isPending(token: string): Promise<boolean> {
    const found = await this.requests.countDocuments({ token_hash: sha256(token), used_at: null, expires_at: { $gt: new Date(this.now()) } }, { limit: 1 });
    return found > 0;
  }

  /**
   * Spends a verification token (atomically: of two concurrent clicks one wins) and issues the
   * owner's new key. Earlier keys of the same owner are revoked, so an email holds one active key
   * and a lost key is replaced by asking again. Null when the token is unknown, used or expired.
   */
  async redeem(token: string): Promise<{ key: string; doc: FreeKeyDoc } | null> {
    const now = new Date(this.now());
    const request = await this.requests.findOneAndUpdate(
      { token_hash: sha256(token), used_at: null, expires_at: { $gt: now } },
      { $set: { used_at: now } },
      { returnDocument: 'after' },
    );
    if (!request) return null;
    const key = `${FREE_KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
    const doc: FreeKeyDoc = { _id: newId('apiKey', now.getTime()), key_hash: sha256(key), owner: request.owner, email: request.email, tier: 'free', created_at: now, revoked_at: null };
    await this.keys.insertOne(doc);
    await this.keys.updateMany({ owner: request.owner, _id: { $ne: doc._id }, revoked_at: null }, { $set: { revoked_at: now } });
    return { key, doc };
  }

  /** The active key with this secret, if any. */
  async findActive(key: string): Promise<FreeKeyDoc | null> {
    return this.keys.findOne({ key_hash: sha256(key), revoked_at: null });
  }
}
