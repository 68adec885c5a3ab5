// The lookup service's two admin actions for `npm run admin`: mint a free key for an email without
// the email round trip, and give a client its daily allowance back. Both go through the service's
// own store and limiter code, so keys and counters are exactly what the service reads.
import { DayLimiter, ensureCollections } from '@dv/runtime';
import type { Redis } from 'ioredis';
import type { Db } from 'mongodb';
import { FreeKeyStore, LOOKUP_COLLECTIONS, LOOKUP_DEFAULTS, QUOTA_LIMITER_NAMES, QUOTA_SUBJECTS, ownerOf } from '@dv/lookup/admin';

/**
 * A new free key for `email`, as if its owner had clicked the verification link: the same store
 * call issues it and revokes the owner's earlier keys (one active key per email).
 */
export async function mintFreeLookupKey(db: Db, email: string): Promise<{ api_key: string; email: string; created_at: string; note: string }> {
  if (!/^[^\s@]+@[^\s@]+$/.test(email)) throw new Error(`"${email}" is not an email address`);
  await ensureCollections(db, Object.values(LOOKUP_COLLECTIONS));
  const store = new FreeKeyStore(db);
  const request = await store.createRequest(email, 60_000);
  const issued = await store.redeem(request.token);
  if (!issued) throw new Error('the key request expired before it could be redeemed');
  return { api_key: issued.key, email, created_at: issued.doc.created_at.toISOString(), note: 'Shown once; only its hash is stored. Earlier keys of this email are revoked.' };
}

export type QuotaTarget = { email: string } | { ip: string };

/** Forgets today's lookups of a free key's owner (by email) or of an anonymous client (by IP). */
export async function resetLookupQuota(redis: Redis, target: QuotaTarget, keyPrefix: string = process.env.REDIS_KEY_PREFIX ?? LOOKUP_DEFAULTS.redisKeyPrefix): Promise<{ tier: 'free' | 'anonymous'; subject: string; had_usage: boolean }> {
  const tier = 'email' in target ? 'free' : 'anonymous';
  const subject = 'email' in target ? QUOTA_SUBJECTS.free(ownerOf(target.email)) : QUOTA_SUBJECTS.anonymous(target.ip);
  const limiter = new DayLimiter({ redis, keyPrefix: `${keyPrefix}${QUOTA_LIMITER_NAMES[tier]}` });
  return { tier, subject, had_usage: await limiter.reset(subject) };
}
