// The gateway's environment variables, one row each (name, validation with its default, unit,
// meaning): config.ts builds its schema from them and scripts/config-tables.ts prints the docs'
// tables from them. The defaults themselves, and why they are what they are, are in defaults.ts.
import { z } from 'zod';
import { notifyTunables } from '@dv/notify';
import { env, tunables } from '@dv/runtime';
import { GATEWAY_DEFAULTS as D } from './defaults.ts';

export const GATEWAY_TUNABLES = tunables({
  PUBLIC_BASE_URL: {
    schema: env.url(['http:', 'https:']).default(D.publicBaseUrl).transform((v) => v.replace(/\/+$/, '')),
    meaning:
      'base of `status_url`, `results_url`, `download_url`, and the OAuth issuer of the MCP connector (docs/oauth.md); a loopback address is refused when `NODE_ENV=production` (README "Production")',
  },
  UPGRADE_URL: {
    schema: env.url(['http:', 'https:']).optional(),
    defaultText: '`<PUBLIC_BASE_URL>/app/plan` (the console\'s plan page)',
    meaning: '`upgrade_url` of `plan_not_entitled`',
  },
  /** Every replica and the scheduler need the same key; unset outside production, a random key for this process only (npm start passes one per stack). */
  DOWNLOAD_SIGNING_SECRET: {
    schema: z.string().min(32, 'must be at least 32 characters').optional(),
    defaultText: 'a random key for this process, with a warning (`npm start` passes one per stack); **required** when `NODE_ENV=production`',
    meaning:
      'HMAC key of signed CSV links and sealed OAuth consent requests (or `_FILE`); min 32 chars; the same on every replica (and the scheduler\'s completion email); never a value that has been in the repository',
  },
  DOWNLOAD_LINK_TTL_SECONDS: { schema: env.int(D.downloadLinkTtlSeconds, 60, 30 * 24 * 60 * 60), meaning: 'validity of `download_url` (default 7 days)' },
  REDIS_KEY_PREFIX: { schema: z.string().regex(/^[A-Za-z0-9_:.-]{0,40}$/).default(D.redisKeyPrefix), meaning: 'prefix of every Redis key (limits, slots, idempotency)' },
  AUTH_CACHE_TTL_MS: { schema: env.int(D.authCacheTtlMs, 0, 300_000), meaning: 'how long an authenticated key is remembered in-process (0 = never)' },
  AUTH_ATTEMPTS_PER_IP_PER_MINUTE: {
    schema: env.int(D.authAttemptsPerIpPerMinute, 0, 10_000_000),
    meaning: 'credential lookups per client address (`req.ip`) per minute before 429 (0 = off); see docs/gateway.md "Abuse before authentication"',
  },
  AUTH_FAILURE_POINTS: {
    schema: env.int(D.authFailurePoints, 1, 10_000),
    unit: 'lookups',
    meaning: 'what a failed lookup (unknown or wrong key, refused OAuth client or grant) costs in all; a success costs 1',
  },
  AUTH_NEGATIVE_CACHE_TTL_MS: { schema: env.int(D.authNegativeCacheTtlMs, 0, 60_000), meaning: 'how long an unknown or revoked key prefix is remembered in-process (0 = never)' },
  MCP_LIST_URL_ALLOW_HTTP_LOOPBACK: {
    schema: env.bool(false),
    meaning: '**tests only**: MCP `verify_list_from_url` may fetch loopback (127.0.0.1/::1) targets, over http too. Refused when `NODE_ENV=production`',
  },
  WEBHOOK_ALLOW_HTTP_LOOPBACK: {
    schema: notifyTunables.WEBHOOK_ALLOW_HTTP_LOOPBACK.schema,
    meaning:
      '**tests only**: `webhook_url` may name a loopback receiver (127.0.0.0/8, ::1, `localhost`) over http or https, as the notify worker allows with the same variable (docs/notify.md §5). Refused when `NODE_ENV=production`',
  },
  SMTP_RELAY_URL: { ...notifyTunables.SMTP_RELAY_URL, defaultText: 'unset: the console cannot mail sign-in links (npm start passes its mail catcher)', meaning: 'SMTP relay for the console\'s sign-in and invitation emails (`smtp://` or `smtps://`, credentials in the URL)' },
  MAIL_FROM: { schema: z.string().min(3).default('Email Verification <no-reply@localhost>'), meaning: 'sender of the console\'s emails' },
  CONSOLE_SESSION_IDLE_MINUTES: { schema: env.int(D.consoleSessionIdleMinutes, 5, 30 * 24 * 60), meaning: 'a console session unused this long ends' },
  CONSOLE_SESSION_MAX_DAYS: { schema: env.int(D.consoleSessionMaxDays, 1, 90), meaning: 'a console session ends this long after sign-in, however busy' },
  SIGN_IN_LINK_TTL_MINUTES: { schema: env.int(D.signInLinkTtlMinutes, 1, 24 * 60), meaning: 'validity of an emailed sign-in link (it works once)' },
  SIGN_IN_LINKS_PER_EMAIL_PER_DAY: { schema: env.int(D.signInLinksPerEmailPerDay, 1, 10_000), meaning: 'sign-in links mailed to one address per UTC day' },
  SIGN_IN_LINKS_PER_IP_PER_DAY: { schema: env.int(D.signInLinksPerIpPerDay, 1, 1_000_000), meaning: 'sign-in links asked for from one client address per UTC day' },
  CONSOLE_CHECK_WAIT_SECONDS: { schema: env.int(D.consoleCheckWaitSeconds, 0, D.maxWaitSeconds), meaning: 'the console\'s check page waits this long for a result, then shows "still running"' },
  OAUTH_REGISTRATIONS_PER_HOUR: {
    schema: env.int(D.oauthRegistrationsPerHour, 1, 100_000),
    meaning: 'OAuth dynamic client registrations per client IP per hour (docs/oauth.md)',
  },
});
