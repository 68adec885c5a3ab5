import type { Redis } from 'ioredis';
import type { Db } from 'mongodb';
import type { AuthMarks} from '@dv/accounts';
import { hashKey, isPortfolioKeyShape, KeyAuthenticator, lookupPortfolioKey, type Account } from '@dv/accounts';
import { COLLECTIONS, type PortfolioKeyDoc } from '@dv/contracts';
import { AuthAttemptLimiter, type Logger } from '@dv/runtime';
import { PORTFOLIO_DEFAULTS as D } from '../defaults.ts';

// The portfolio API's keys through the shared KeyAuthenticator (@dv/accounts authenticator.ts),
// the verification API's too: remembered in process and believed only while no revocation mark
// on the key or its account is newer than the read, a change stream, unknown or revoked keys
// remembered briefly by their hash, and a per-address limit on MongoDB lookups.

export interface PortfolioKeyFound {
  account: Account;
  key: PortfolioKeyDoc;
}

export type PortfolioKeyAuthenticator = KeyAuthenticator<PortfolioKeyFound>;

export interface PortfolioAuthOptions {
  db: Db;
  redis: Redis;
  log: Logger;
  marks: AuthMarks;
  /** The service's Redis prefix (the attempt counters live under it). */
  redisPrefix: string;
  cacheTtlMs?: number;
  attemptsPerIpPerMinute?: number;
}

export function portfolioKeyAuthenticator(o: PortfolioAuthOptions): PortfolioKeyAuthenticator {
  return new KeyAuthenticator<PortfolioKeyFound>({
    db: o.db,
    log: o.log,
    marks: o.marks,
    cacheTtlMs: o.cacheTtlMs ?? D.apiKeyCacheTtlMs,
    negativeCacheTtlMs: D.apiAuthNegativeCacheTtlMs,
    negativeCacheMaxEntries: D.apiAuthNegativeCacheMaxEntries,
    attempts: new AuthAttemptLimiter({ redis: o.redis, keyPrefix: `${o.redisPrefix}papi:authip`, pointsPerMinute: o.attemptsPerIpPerMinute ?? D.apiAuthAttemptsPerIpPerMinute, failurePoints: D.apiAuthFailurePoints }),
    watch: [{ name: COLLECTIONS.portfolioApiKeys.name }, { name: COLLECTIONS.accounts.name }],
    wellFormed: isPortfolioKeyShape,
    // Keys are found by their hash: the hash is what is remembered (the key itself never is).
    negativeKey: (p) => hashKey(p),
    createdKey: (doc) => (typeof doc.hash === 'string' ? doc.hash : null),
    resolve: async (p, now) => {
      const r = await lookupPortfolioKey(o.db, p, now);
      if (!r.ok) return { ok: false, reason: r.reason, remember: r.reason === 'unknown' || r.reason === 'revoked' };
      return { ok: true, value: { account: r.account, key: r.key }, ids: [r.key._id, r.account._id], expiresAt: r.key.expires_at?.getTime() ?? null };
    },
  });
}
