// The lookup service's environment variables, one row each (name, validation with its default,
// unit, meaning): config.ts builds its schema from them and scripts/config-tables.ts prints the
// docs' tables from them. The defaults themselves, and why they are what they are, are in defaults.ts.
import { z } from 'zod';
import { DNSBL_ZONES } from '@dv/mailsec';
import { env, tunables } from '@dv/runtime';
import { LOOKUP_DEFAULTS as D } from './defaults.ts';

const httpUrl = () => env.url(['http:', 'https:']).transform((v) => v.replace(/\/+$/, ''));

export const LOOKUP_TUNABLES = tunables({
  DNS_SERVERS: { schema: env.hostPorts(), defaultText: "the system's resolvers", meaning: '`host[:port]` list the engine asks' },
  RDAP_BOOTSTRAP_URL: { schema: env.url(['http:', 'https:']).optional(), defaultText: 'shipped IANA data', meaning: 'RDAP bootstrap (the simulated world serves one)' },
  DNS_TIMEOUT_MS: { schema: env.int(D.dnsTimeoutMs, 100, 30_000), meaning: 'per DNS query' },
  DNS_CANARIES: {
    schema: env.domainList(D.dnsCanaries),
    meaning:
      'names that certainly exist; while the resolver denies them (or answers them all with one address) every DNS lookup answers 503 `service_unavailable` with `reason: resolver_unreliable` and `Retry-After` (not counted, not cached) instead of "does not exist", and `/readyz` names it under `degraded` (docs/mailsec.md "Resolver sanity"); empty: no check',
  },
  DNS_CANARY_INTERVAL_MS: { schema: env.int(D.dnsCanaryIntervalMs, 100, 3_600_000), meaning: 'how often the canaries are asked while the resolver is believed' },
  DNS_CANARY_UNRELIABLE_INTERVAL_MS: { schema: env.int(D.dnsCanaryUnreliableIntervalMs, 100, 3_600_000), meaning: 'how often the canaries are asked while the resolver is not believed' },
  LOOKUP_TIMEOUT_MS: { schema: env.int(D.lookupTimeoutMs, 1_000, 120_000), meaning: 'per lookup (one engine run; DNS timeouts and retries finish inside it)' },
  MAX_RECORD_CHARS: { schema: env.int(D.maxRecordChars, 64, 65_536), meaning: 'longest record validate accepts' },
  ALLOW_PRIVATE_TARGETS: {
    schema: env.bool(false),
    meaning: 'accept loopback/private/documentation IP targets (only for the simulated world; refused when `NODE_ENV=production`)',
  },
  WHOIS_PORT: { schema: z.coerce.number().int().min(1).max(65_535).optional(), defaultText: '43', meaning: 'port-43 WHOIS port (tests)' },
  DNSBL_ZONES: {
    schema: z
      .string()
      .default('')
      .transform((v, ctx) => {
        const items = v.split(',').map((s) => s.trim()).filter(Boolean);
        const models = DNSBL_ZONES.map((z) => z.zone);
        for (const item of items) {
          const [zone = '', model = ''] = item.toLowerCase().split('=');
          if (!/^[a-z0-9.-]+$/.test(zone) || !models.includes(model)) ctx.addIssue({ code: 'custom', message: `"${item}" is not zone=model with model one of ${models.join(', ')}` });
        }
        return items;
      }),
    defaultText: 'built-in lists',
    meaning: '`zone=model` pairs, e.g. `zen.dnsbl.test=zen.spamhaus.org`: ask `zone`, read answers with the code table of built-in list `model` (engine.ts `dnsblZonesFrom`)',
  },
  PUBLIC_BASE_URL: {
    schema: httpUrl().default(D.publicBaseUrl),
    meaning: 'public address for links in emails, the index and OpenAPI `servers`; never taken from the Host header; a loopback address is refused when `NODE_ENV=production`',
  },
  SOURCE_BASE_URL: {
    schema: httpUrl().optional(),
    defaultText: '`PUBLIC_BASE_URL` (this service\'s own web pages)',
    meaning: 'web tools the `source` links point at: `<base>/<tool-slug>/<target>`',
  },
  /** Every replica needs the same key; unset outside production, a random key for this process only. */
  WEB_SECRET: {
    schema: z.string().min(32, 'must be at least 32 characters').optional(),
    defaultText: 'a random key for this process, with a warning; **required** when `NODE_ENV=production`',
    meaning:
      'HMAC key of the web pages\' CSRF tokens (or `_FILE`); min 32 chars; the same on every replica (a form shown by one replica is posted to another); never a value that has been in the repository',
  },
  DOCS_URL: { schema: httpUrl().default(D.docsUrl), meaning: 'documentation link in the index, OpenAPI and 429 bodies' },
  PRICING_URL: { schema: httpUrl().default(D.pricingUrl), meaning: 'pricing link in the index, OpenAPI and 429 bodies' },
  ANONYMOUS_LOOKUPS_PER_DAY: { schema: env.int(D.anonymousPerDay, 1, 1_000_000), meaning: 'allowance of an anonymous client (per client IP; IPv6 per /64)' },
  FREE_KEY_LOOKUPS_PER_DAY: { schema: env.int(D.freeKeyPerDay, 1, 1_000_000), meaning: 'allowance of a free key owner' },
  CACHE_TTL_SECONDS: { schema: env.int(D.cacheTtlSeconds, 0, 86_400), meaning: 'response cache lifetime (0 = off)' },
  REDIS_KEY_PREFIX: {
    schema: z.string().regex(/^[A-Za-z0-9:_-]{1,64}$/, 'must be 1-64 letters, digits, :, _ or -').default(D.redisKeyPrefix),
    meaning: 'prefix of every Redis key (tests use one per file)',
  },
  SMTP_RELAY_URL: {
    schema: env.url(['smtp:', 'smtps:']).optional(),
    defaultText: 'unset: key requests answer 503',
    meaning: 'relay for verification emails: `smtp://[user:pass@]host:port` or `smtps://…`',
  },
  MAIL_FROM: { schema: z.string().min(3).default(D.mailFrom), meaning: 'sender of verification emails' },
  SMTP_TIMEOUT_MS: { schema: env.int(D.smtpTimeoutMs, 500, 120_000), meaning: 'relay timeout; the caller gets 503 and may retry' },
  KEY_LINK_TTL_MINUTES: { schema: env.int(D.keyLinkTtlMinutes, 1, 7 * 24 * 60), meaning: 'verification link lifetime' },
  KEY_REQUESTS_PER_EMAIL_PER_DAY: { schema: env.int(D.keyRequestsPerEmailPerDay, 1, 1_000), meaning: 'key requests (emails sent) per address: stops mail-bombing one inbox' },
  KEY_REQUESTS_PER_IP_PER_DAY: { schema: env.int(D.keyRequestsPerIpPerDay, 1, 100_000), meaning: 'key requests per client IP: stops one client from mailing many inboxes' },
  KEY_ATTEMPTS_PER_IP_PER_MINUTE: {
    schema: env.int(D.keyAttemptsPerIpPerMinute, 0, 10_000_000),
    meaning: 'free-key checks in MongoDB per client IP (IPv6: per /64) before 429 (0 = off)',
  },
  KEY_FAILURE_POINTS: { schema: env.int(D.keyFailurePoints, 1, 10_000), unit: 'checks', meaning: 'what a check of an unknown key costs in all; a success costs 1' },
});
