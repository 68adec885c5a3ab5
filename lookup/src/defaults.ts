// Every tunable of the lookup service with its default; config.ts reads them from the environment.
// Durations carry their unit in the name. docs/lookup.md explains the choices.
import { RESOLVER_SANITY_DEFAULTS } from '@dv/mailsec';

export const LOOKUP_DEFAULTS = {
  /** HTTP port (the stack's fixed port plan: gateway 8080, lookup 8081, portfolio 8082). */
  port: 8081,
  /** Where links in emails and the service index point; set it to the public address behind the proxy. */
  publicBaseUrl: 'http://127.0.0.1:8081',
  docsUrl: 'https://tools.example/docs/lookup-api',
  pricingUrl: 'https://tools.example/pricing',

  /**
   * Anonymous lookups per client IP per UTC day. The spec says 10 in most places and 25 once; we
   * enforce the stricter 10 so no statement of the spec promises less than we give.
   */
  anonymousPerDay: 10,
  /** Free-key lookups per key owner per UTC day (spec: 100). */
  freeKeyPerDay: 100,
  /** How long a lookup result is served from the cache (and not counted) after a live lookup. */
  cacheTtlSeconds: 300,
  /** Redis key prefix: lets several deployments (or test files) share one Redis. */
  redisKeyPrefix: 'lookup:',

  /** Upper bound for one engine run; DNS timeouts and retries must finish inside it. */
  lookupTimeoutMs: 20_000,
  /** Per-DNS-query timeout handed to the engine. */
  dnsTimeoutMs: 3_000,
  /**
   * DNS_CANARIES: names that certainly exist, asked to judge whether the resolver can be believed
   * (@dv/mailsec resolver sanity). While it denies them (or answers them all alike) a lookup answers
   * 503 "resolver unreliable" instead of "does not exist". Empty turns the check off.
   */
  dnsCanaries: RESOLVER_SANITY_DEFAULTS.canaries,
  /** DNS_CANARY_INTERVAL_MS / DNS_CANARY_UNRELIABLE_INTERVAL_MS: how often the canaries are asked while the resolver is believed / not. */
  dnsCanaryIntervalMs: RESOLVER_SANITY_DEFAULTS.intervalMs,
  dnsCanaryUnreliableIntervalMs: RESOLVER_SANITY_DEFAULTS.unreliableIntervalMs,

  /** A verification link works this long after the request. */
  keyLinkTtlMinutes: 24 * 60,
  /** Key requests (emails sent) per address per UTC day: stops mail-bombing one inbox. */
  keyRequestsPerEmailPerDay: 3,
  /** Key requests per client IP per UTC day: stops one client from mailing many inboxes. */
  keyRequestsPerIpPerDay: 10,
  /** Sender of verification emails. */
  mailFrom: 'Domain Lookup <no-reply@tools.example>',
  /** Give up on the SMTP relay after this long; the caller gets 503 and may retry. */
  smtpTimeoutMs: 10_000,

  /**
   * Abuse before authentication (@dv/runtime AuthAttemptLimiter): lookups of a presented free key
   * in MongoDB per client IP (IPv6: per /64) and minute; a key found unknown costs
   * `keyFailurePoints` in all. Far above what one person's tools send; 0 turns it off.
   */
  keyAttemptsPerIpPerMinute: 600,
  keyFailurePoints: 20,
  /**
   * A presented key found unknown or replaced is remembered this long per process, so repeating it
   * costs no MongoDB read. Nothing needs dropping: a new key is 256 fresh random bits, never one
   * that was presented before, and a replaced key never comes back.
   */
  unknownKeyCacheTtlMs: 60_000,
  unknownKeyCacheMaxEntries: 50_000,

  /** The web pages' form bodies (an email address, a CSRF token): anything larger is refused with 413. */
  webFormMaxBytes: 4_096,

  /** A pasted SPF/DMARC record longer than this is refused before validation (DNS TXT data is far shorter). */
  maxRecordChars: 4_096,
} as const;
