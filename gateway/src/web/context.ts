import { createHmac } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { DayLimiter } from '@dv/runtime';
import { loadAssets, OneTimeTokens, SessionStore, WEB_ASSETS_DIR, type Assets } from '@dv/web';
import type { GatewayContext } from '../context.ts';
import { GATEWAY_DEFAULTS as D } from '../defaults.ts';
import { consoleKeyPrefix } from './links.ts';
import { createConsoleMailer, type ConsoleMailer } from './mail.ts';
import { ConsoleReads } from './reads.ts';
import { UploadStore } from './uploads.ts';
import { DailyUsageCache } from './usage.ts';

// What the console's pages share, built once per process beside the API's context: sessions,
// one-time links, the sign-in limits, the mailer and the assets.

/** What a console session holds: who signed in (the session's subject) and the account in use. */
export interface ConsoleSessionData {
  email: string;
  accountId: string;
  /** The sandbox switch: the console's checks and lists run free and simulated. */
  sandbox?: boolean;
}

/** What an emailed sign-in link stands for. */
export interface SignInLink {
  email: string;
  /** An invitation names the account the person was added to, so the link opens it. */
  accountId?: string;
  /** The console page to open once signed in. */
  next?: string;
}

export interface ConsoleContext {
  api: GatewayContext;
  assets: Assets;
  sessions: SessionStore<ConsoleSessionData>;
  links: OneTimeTokens<SignInLink>;
  /** Sign-in links per address and per client IP, per UTC day. */
  linksPerEmail: DayLimiter;
  linksPerIp: DayLimiter;
  /** Null when no relay is configured: the sign-in page says so. */
  mailer: ConsoleMailer | null;
  csrfSecret: Buffer;
  baseUrl: string;
  /** Uploaded lists waiting for their confirm step. */
  uploads: UploadStore;
  /** The viewer's memberships and live refreshes' jobs, read in groups. */
  reads: ConsoleReads;
  /** The account page's 30-day chart, kept a minute per account. */
  usage: DailyUsageCache;
}

const CONSOLE_ASSETS_DIR = fileURLToPath(new URL('../../assets/', import.meta.url));

export function createConsoleContext(api: GatewayContext): ConsoleContext {
  const c = api.config;
  const prefix = consoleKeyPrefix(c.REDIS_KEY_PREFIX);
  return {
    api,
    assets: loadAssets([WEB_ASSETS_DIR, CONSOLE_ASSETS_DIR]),
    sessions: new SessionStore(api.redis, prefix, { idleMs: c.CONSOLE_SESSION_IDLE_MINUTES * 60_000, absoluteMs: c.CONSOLE_SESSION_MAX_DAYS * 86_400_000 }),
    links: new OneTimeTokens(api.redis, prefix),
    linksPerEmail: new DayLimiter({ redis: api.redis, keyPrefix: `${prefix}:links:email` }),
    linksPerIp: new DayLimiter({ redis: api.redis, keyPrefix: `${prefix}:links:ip` }),
    mailer: c.SMTP_RELAY_URL ? createConsoleMailer(c.SMTP_RELAY_URL, c.MAIL_FROM) : null,
    // Derived from the service's signing key: one secret to provision, and a CSRF token can never
    // be mistaken for a download signature (different message, different purpose).
    csrfSecret: createHmac('sha256', api.downloadSecret).update('console csrf').digest(),
    baseUrl: c.PUBLIC_BASE_URL,
    uploads: new UploadStore(api.redis, prefix, { ttlSeconds: D.consoleUploadTtlSeconds, perPerson: D.consoleUploadsPerPerson }),
    reads: new ConsoleReads(api.db, { maxBatch: D.consoleReadBatchMax, maxInFlight: D.consoleReadInFlight }),
    usage: new DailyUsageCache(api.db, D.consoleUsageChartTtlMs),
  };
}
