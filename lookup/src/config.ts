import { z } from 'zod';
import { DNSBL_ZONES } from '@dv/mailsec';
import { env, serviceSchema, unsafe, type ProductionRules } from '@dv/runtime';
import { LOOKUP_DEFAULTS as D } from './defaults.ts';

const httpUrl = () => env.url(['http:', 'https:']).transform((v) => v.replace(/\/+$/, ''));

export const lookupConfigSchema = z.object({
  ...serviceSchema(D.port),
  DNS_SERVERS: env.hostPorts(),
  /** Where RDAP base URLs come from; empty = the IANA bootstrap data shipped with the engine. */
  RDAP_BOOTSTRAP_URL: env.url(['http:', 'https:']).optional(),
  DNS_TIMEOUT_MS: env.int(D.dnsTimeoutMs, 100, 30_000),
  DNS_CANARIES: env.domainList(D.dnsCanaries),
  DNS_CANARY_INTERVAL_MS: env.int(D.dnsCanaryIntervalMs, 100, 3_600_000),
  DNS_CANARY_UNRELIABLE_INTERVAL_MS: env.int(D.dnsCanaryUnreliableIntervalMs, 100, 3_600_000),
  LOOKUP_TIMEOUT_MS: env.int(D.lookupTimeoutMs, 1_000, 120_000),
  MAX_RECORD_CHARS: env.int(D.maxRecordChars, 64, 65_536),
  /** Accept loopback/private/documentation IP targets: only for the simulated world (127.0.0.0/8). */
  ALLOW_PRIVATE_TARGETS: env.bool(false),
  /** Port-43 WHOIS port (tests); unset = 43. */
  WHOIS_PORT: z.coerce.number().int().min(1).max(65_535).optional(),
  /** `zone=model` list (see engine.ts dnsblZonesFrom); unset = the engine's built-in DNSBLs. */
  DNSBL_ZONES: z
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

  /** Public address of this service (verification links, service index). Never taken from the Host header. */
  PUBLIC_BASE_URL: httpUrl().default(D.publicBaseUrl),
  SOURCE_BASE_URL: httpUrl().default(D.sourceBaseUrl),
  DOCS_URL: httpUrl().default(D.docsUrl),
  PRICING_URL: httpUrl().default(D.pricingUrl),

  ANONYMOUS_LOOKUPS_PER_DAY: env.int(D.anonymousPerDay, 1, 1_000_000),
  FREE_KEY_LOOKUPS_PER_DAY: env.int(D.freeKeyPerDay, 1, 1_000_000),
  CACHE_TTL_SECONDS: env.int(D.cacheTtlSeconds, 0, 86_400),
  REDIS_KEY_PREFIX: z.string().regex(/^[A-Za-z0-9:_-]{1,64}$/, 'must be 1-64 letters, digits, :, _ or -').default(D.redisKeyPrefix),

  /** SMTP relay for verification emails, e.g. smtp://user:pass@relay:587 or smtps://…; unset = key requests answer 503. */
  SMTP_RELAY_URL: env.url(['smtp:', 'smtps:']).optional(),
  MAIL_FROM: z.string().min(3).default(D.mailFrom),
  SMTP_TIMEOUT_MS: env.int(D.smtpTimeoutMs, 500, 120_000),
  KEY_LINK_TTL_MINUTES: env.int(D.keyLinkTtlMinutes, 1, 7 * 24 * 60),
  KEY_REQUESTS_PER_EMAIL_PER_DAY: env.int(D.keyRequestsPerEmailPerDay, 1, 1_000),
  KEY_REQUESTS_PER_IP_PER_DAY: env.int(D.keyRequestsPerIpPerDay, 1, 100_000),
  /** Free-key lookups in MongoDB per client IP per minute before 429 (0: off); failures cost KEY_FAILURE_POINTS. */
  KEY_ATTEMPTS_PER_IP_PER_MINUTE: env.int(D.keyAttemptsPerIpPerMinute, 0, 10_000_000),
  KEY_FAILURE_POINTS: env.int(D.keyFailurePoints, 1, 10_000),
});
export type LookupConfig = z.infer<typeof lookupConfigSchema>;

// TRUSTED_PROXIES (and BEHIND_PROXY) come with serviceSchema: the IPs or CIDRs of the reverse proxies
// whose X-Forwarded-For we believe; empty (the default) means the socket address is the client, as
// a header anyone can send must never choose whose quota is spent.

/** Refused when NODE_ENV=production (loadConfig lists every one; the process exits 78). */
export const lookupProductionRules: ProductionRules<LookupConfig> = {
  PUBLIC_BASE_URL: unsafe.loopbackUrl(),
  ALLOW_PRIVATE_TARGETS: unsafe.switchOn('accepts loopback/private IP targets (the simulated world only)'),
};
