import type { Redis } from 'ioredis';
import type { Db } from 'mongodb';
import type { Registry } from 'prom-client';
import { AuthAttemptLimiter, DayLimiter, NegativeCache, type DailyAllowance, type Logger } from '@dv/runtime';
import { ResultCache } from './cache.ts';
import type { LookupConfig } from './config.ts';
import type { Engine } from './engine.ts';
import type { Tier } from './envelope.ts';
import { createSmtpMailer, type Mailer } from './keys/mailer.ts';
import { FreeKeyStore } from './keys/store.ts';
import { createLookupMetrics, type LookupMetrics } from './metrics.ts';
import { LOOKUP_DEFAULTS as D } from './defaults.ts';
import { createLookupWeb, type LookupWeb } from './web/context.ts';

/** Everything a request handler (REST or MCP) needs, built once per process. */
export interface LookupContext {
  config: LookupConfig;
  engine: Engine;
  log: Logger;
  metrics: LookupMetrics;
  cache: ResultCache;
  quotas: Record<Tier, DailyAllowance>;
  keyRequestLimits: { perEmail: DailyAllowance; perIp: DailyAllowance };
  keys: FreeKeyStore;
  /** Abuse before authentication: presented keys' MongoDB lookups per client IP, and keys known to be unknown. */
  keyAttempts: AuthAttemptLimiter;
  unknownKeys: NegativeCache;
  /** Absent when SMTP_RELAY_URL is not set: key requests then answer 503. */
  mailer?: Mailer;
  /** The web pages' assets and CSRF key. */
  web: LookupWeb;
  now: () => number;
}

export interface LookupContextOptions {
  config: LookupConfig;
  engine: Engine;
  redis: Redis;
  db: Db;
  log: Logger;
  registry: Registry;
  mailer?: Mailer;
  /** WEB_SECRET as resolved by main.ts (config.ts webSecret); absent (tests): a random key for this process. */
  webSecret?: string;
  now?: () => number;
}

/** Redis key names (after REDIS_KEY_PREFIX) of the daily allowances, by tier. */
export const QUOTA_LIMITER_NAMES = { anonymous: 'quota:anonymous', free: 'quota:free' } as const;

export function createLookupContext(opts: LookupContextOptions): LookupContext {
  const { config, redis } = opts;
  const now = opts.now ?? Date.now;
  const prefix = config.REDIS_KEY_PREFIX;
  const daily = (name: string, limit: number) => new DayLimiter({ redis, keyPrefix: `${prefix}${name}`, now }).withLimit(limit);
  const mailer = opts.mailer ?? (config.SMTP_RELAY_URL ? createSmtpMailer({ relayUrl: config.SMTP_RELAY_URL, from: config.MAIL_FROM, timeoutMs: config.SMTP_TIMEOUT_MS }) : undefined);
  return {
    config,
    engine: opts.engine,
    log: opts.log,
    metrics: createLookupMetrics(opts.registry),
    cache: new ResultCache({ redis, keyPrefix: prefix, ttlSeconds: config.CACHE_TTL_SECONDS }),
    quotas: {
      anonymous: daily(QUOTA_LIMITER_NAMES.anonymous, config.ANONYMOUS_LOOKUPS_PER_DAY),
      free: daily(QUOTA_LIMITER_NAMES.free, config.FREE_KEY_LOOKUPS_PER_DAY),
    },
    keyRequestLimits: {
      perEmail: daily('keyreq:email', config.KEY_REQUESTS_PER_EMAIL_PER_DAY),
      perIp: daily('keyreq:ip', config.KEY_REQUESTS_PER_IP_PER_DAY),
    },
    keys: new FreeKeyStore(opts.db, now),
    keyAttempts: new AuthAttemptLimiter({ redis, keyPrefix: `${prefix}keyattempts`, pointsPerMinute: config.KEY_ATTEMPTS_PER_IP_PER_MINUTE, failurePoints: config.KEY_FAILURE_POINTS }),
    unknownKeys: new NegativeCache({ ttlMs: D.unknownKeyCacheTtlMs, maxEntries: D.unknownKeyCacheMaxEntries, now }),
    mailer,
    web: createLookupWeb(opts.webSecret),
    now,
  };
}
