// The scheduler's environment variables, one row each (name, validation with its default, unit,
// meaning): config.ts builds its schema from them and scripts/config-tables.ts prints the docs'
// tables from them. The defaults themselves, and why they are what they are, are in defaults.ts.
import { z } from 'zod';
import { env, tunables } from '@dv/runtime';
import { SCHEDULER_DEFAULTS as D } from './defaults.ts';

const ms = (fallback: number, min = 1, max = 24 * 3_600_000) => env.int(fallback, min, max);
const name = (fallback: string) => z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1-64 letters, digits, _ or -').default(fallback);

/** Comma-separated positive minutes, ascending (the greylist and temporary-failure ladders). */
const ladder = (fallback: readonly number[]) =>
  z
    .string()
    .default(fallback.join(','))
    .transform((v, ctx) => {
      const steps = v.split(',').map((s) => Number(s.trim()));
      if (steps.length === 0 || steps.some((n) => !Number.isFinite(n) || n <= 0)) ctx.addIssue({ code: 'custom', message: 'must be comma-separated positive minutes' });
      for (let i = 1; i < steps.length; i++) if (steps[i]! <= steps[i - 1]!) ctx.addIssue({ code: 'custom', message: 'steps must increase (minutes after the first try)' });
      return steps;
    });

const positive = (fallback: number) => z.coerce.number().positive().default(fallback);
const ratio = (fallback: number) => z.coerce.number().gt(0).max(1).default(fallback);

/** Before the notify rows (config.ts spreads them between). */
export const SCHEDULER_TUNABLES = tunables({
  DNS_SERVERS: { schema: env.hostPorts(), defaultText: "the system's resolvers", meaning: 'resolvers for MX lookups (`host` or `host:port`, comma-separated)' },
  REDIS_PREFIX: {
    schema: z.string().regex(/^[A-Za-z0-9_:.-]{1,64}$/, 'must be 1-64 letters, digits, _ : . or -').default(D.redisPrefix),
    meaning: 'prefix of every Redis key (politeness, DNS cache, catch-all memory): replicas of one deployment share it',
  },
  VERIFY_STREAM: { schema: name(D.verifyStream), meaning: 'JetStream stream items come from (contracts `CONSUMERS`)' },
  SINGLE_CONSUMER: { schema: name(D.singleConsumer), meaning: 'durable consumer of single checks' },
  LIST_CONSUMER: { schema: name(D.listConsumer), meaning: 'durable consumer of list items' },
  MAX_ITEMS_IN_FLIGHT: {
    schema: env.int(D.maxItemsInFlight, 1, 1_000_000),
    unit: 'items',
    meaning: 'un-acked items one replica holds while working on them; bounds memory, leaves work for other replicas, and by Little\'s law caps throughput (docs/scheduler.md)',
  },
  SINGLE_RESERVE: { schema: env.int(D.singleReserve, 0, 100_000), unit: 'items', meaning: 'extra in-flight room only single checks may use, so a full list queue never blocks them' },
  STORE_BACKLOG_MAX: {
    schema: env.int(D.storeBacklogMax, 1, 1_000_000),
    unit: 'items',
    meaning: 'finished items waiting for MongoDB beyond which intake pauses (not counted in `MAX_ITEMS_IN_FLIGHT`)',
  },
  STORE_COALESCE_MS: { schema: env.int(D.storeCoalesceMs, 0, 10_000), meaning: 'finished items wait this long for company before a store flush (a session ends many at once)' },
  STORE_BATCH_MAX: { schema: env.int(D.storeBatchMax, 1, 10_000), unit: 'items', meaning: 'items per store flush at most (one transaction and one bulk write per side table)' },
  STORE_PARALLEL_FLUSHES: { schema: env.int(D.storeParallelFlushes, 1, 64), unit: 'flushes', meaning: "store flushes running at once (one job's counter transactions still run one at a time)" },
  FETCH_BATCH: { schema: env.int(D.fetchBatch, 1, 10_000), unit: 'messages', meaning: 'messages per pull request' },
  ACK_PROGRESS_INTERVAL_MS: { schema: ms(D.ackProgressIntervalMs, 100), meaning: '`working()` on held messages so a politeness wait never exceeds `ack_wait` (60 s)' },
  DNS_TIMEOUT_MS: { schema: ms(D.dnsTimeoutMs, 10, 60_000), meaning: 'one MX query attempt' },
  DNS_RETRIES: { schema: env.int(D.dnsRetries, 0, 10), unit: 'attempts', meaning: 'attempts after the first for SERVFAIL / timeout before the item ends unknown' },
  DNS_RETRY_DELAY_MS: { schema: ms(D.dnsRetryDelayMs, 0), meaning: 'pause between those attempts' },
  DNS_CACHE_MAX_TTL_S: { schema: env.int(D.dnsCacheMaxTtlS, 0, 86_400), meaning: 'upper bound on the shared (Redis) MX cache lifetime; the record TTL applies when shorter' },
  DNS_NEGATIVE_TTL_S: { schema: env.int(D.dnsNegativeTtlS, 0, 86_400), meaning: 'lifetime of a cached NXDOMAIN / null MX / no-mail-host answer' },
  DNS_CANARIES: {
    schema: env.domainList(D.dnsCanaries),
    meaning:
      'names that certainly exist, asked to judge whether the resolver can be believed (docs/mailsec.md "Resolver sanity"); while it denies them or answers them all alike, no item ends `domain_absent`; empty: no check',
  },
  DNS_CANARY_INTERVAL_MS: { schema: ms(D.dnsCanaryIntervalMs, 100), meaning: 'how often the canaries are asked while the resolver is believed' },
  DNS_CANARY_UNRELIABLE_INTERVAL_MS: { schema: ms(D.dnsCanaryUnreliableIntervalMs, 100), meaning: 'how often the canaries are asked while the resolver is not believed' },
  BATCH_WINDOW_MS: { schema: ms(D.batchWindowMs, 0, 60_000), meaning: "how long a domain's first item waits for more of its domain" },
  MAX_RCPTS_PER_SESSION: { schema: env.int(D.maxRcptsPerSession, 1, 100), unit: 'RCPTs', meaning: 'RCPT cap per session regardless of the provider table (Microsoft 3, others 20)' },
  MAX_CUT_REDISPATCHES: {
    schema: env.int(D.maxCutRedispatches, 0, 100),
    unit: 'sends',
    meaning: 'times an address left unanswered by a harvest defence\'s cut (421 "too many errors") is sent again at once, not counted as an attempt (dispatch/harvest-cut.ts)',
  },
  POLITE_MAX_SESSIONS: { schema: env.int(D.politeMaxSessions, 0, 1_000), unit: 'sessions', meaning: 'concurrent sessions per (provider, source IP); 0 = provider table (5, Microsoft 2)' },
  POLITE_SESSIONS_PER_MIN: { schema: env.int(D.politeSessionsPerMin, 0, 100_000), meaning: 'new sessions per (provider, source IP); 0 = provider table (gmail 10, microsoft 10, yahoo 25, others 60)' },
  POLITE_RCPTS_PER_SESSION: { schema: env.int(D.politeRcptsPerSession, 0, 100), unit: 'RCPTs', meaning: 'RCPTs per session; 0 = provider table (20, Microsoft 3)' },
  SESSION_LEASE_MS: {
    schema: ms(D.sessionLeaseMs, 1_000),
    meaning: "a concurrency slot frees itself after this, so a dead replica's slot is not held forever; at least `PROBE_SESSION_TIMEOUT_MS` + `PROBE_REQUEST_MARGIN_MS`",
  },
  SLOT_RELEASE_DELAY_MS: { schema: ms(D.slotReleaseDelayMs, 0, 10_000), meaning: "a slot is given back this long after the probe's reply (the MX host has surely seen the close)" },
  PROVIDER_PAUSE_INITIAL_MS: { schema: ms(D.providerPauseInitialMs, 10), meaning: 'first pause of a (provider, IP) after a throttling reply; doubles per throttle in a row' },
  PROVIDER_PAUSE_MAX_MS: { schema: ms(D.providerPauseMaxMs, 10), meaning: 'cap of that growing pause (not below `PROVIDER_PAUSE_INITIAL_MS`)' },
  IP_BLOCK_MS: { schema: ms(D.ipBlockMs, 10), meaning: 'an IP counts as blocked by a provider this long after a policy block' },
  MX_DOWN_MS: { schema: ms(D.mxDownMs, 10), meaning: 'an MX host that refused a connection is not dialled again from that source IP for this long (mx-health.ts)' },
  MX_DOWN_TIMEOUT_MS: { schema: ms(D.mxDownTimeoutMs, 10), meaning: 'the same after a connect timeout' },
  PARK_THRESHOLD_MS: { schema: ms(D.parkThresholdMs, 0), meaning: 'a wait longer than this parks items durably in MongoDB (and acks them) instead of holding them' },
  GREYLIST_LADDER_MINUTES: { schema: ladder(D.greylistLadderMinutes), meaning: 'greylist retries, minutes after the first try (ascending); then `unknown`' },
  GREYLIST_LADDER_SCALE: { schema: positive(D.greylistLadderScale), unit: 'factor', meaning: 'multiplies every step of both ladders (tests use ~0.001 to turn minutes into tens of ms)' },
  TEMP_FAILURE_LADDER_MINUTES: {
    schema: ladder(D.tempFailureLadderMinutes),
    meaning: 'retries after a temporary failure that is not greylisting (451 4.3.0 to everyone), minutes after the first try; then `unknown`/`temp_failure`',
  },
  SWEEP_INTERVAL_MS: { schema: ms(D.sweepIntervalMs, 10, 600_000), meaning: 'how often due retries and job deadlines are looked for' },
  SWEEP_BATCH: { schema: env.int(D.sweepBatch, 1, 100_000), unit: 'items', meaning: 'retries re-enqueued per sweep per replica' },
  UNPUBLISHED_AFTER_MS: {
    schema: ms(D.unpublishedAfterMs, 100, 110_000),
    meaning: "a job whose publish mark has not moved this long belongs to a gateway that died mid-publish; the sweep publishes the rest (under JetStream's 2-minute duplicate window)",
  },
  CATCH_ALL_MEMORY_MS: { schema: ms(D.catchAllMemoryMs, 0, 30 * 86_400_000), meaning: 'a domain found catch-all is answered `risky`/`catch_all` without a session for this long' },
  PROBE_NODE_GONE_MS: { schema: ms(D.probeNodeGoneMs, 100), meaning: 'a probe node without a heartbeat for this long is gone; its sessions are retried elsewhere' },
  PROBE_EGRESS_FAULT_MS: { schema: ms(D.probeEgressFaultMs, 100), meaning: 'a source IP whose node cannot get out from it (`node_fault: egress`) gets no session for this long' },
  PROBE_SESSION_TIMEOUT_MS: { schema: ms(D.probeSessionTimeoutMs, 100, 600_000), meaning: 'the session budget asked of the probe' },
  PROBE_REQUEST_MARGIN_MS: { schema: ms(D.probeRequestMarginMs, 0, 600_000), meaning: 'added to the session budget for the NATS request timeout' },
  PROBE_MAIL_FROM: {
    schema: z.email('must be an email address').default(D.probeMailFrom),
    meaning: 'the MAIL FROM of every probe; greylisting keys on it, so it stays stable; refused under `localhost` when `NODE_ENV=production`',
  },
  PROBE_REDISPATCH_MAX: {
    schema: env.int(D.probeRedispatchMax, 0, 100),
    unit: 'sessions',
    meaning: 'lost probe sessions one item may take part in while held, each sent again elsewhere; the next loss ends it as a terminal unknown (intake/poison-result.ts)',
  },
  VERIFY_MAX_DELIVERIES: {
    schema: env.int(D.verifyMaxDeliveries, 2, 1_000),
    unit: 'deliveries',
    meaning: 'deliveries of one VERIFY message before the item is ended as a terminal unknown instead of worked again (intake/poison-result.ts)',
  },
  LOAD_INTERVAL_MS: { schema: ms(D.loadIntervalMs, 50, 600_000), meaning: 'how often load figures are computed and written to the LOAD bucket' },
  LOAD_KEY: { schema: name(D.loadKey), meaning: 'key in the LOAD KV bucket' },
  LOAD_BUSY_SECONDS: { schema: positive(D.loadBusySeconds), meaning: 'expected wait of a new single check at which load turns busy' },
  LOAD_SATURATED_SECONDS: { schema: positive(D.loadSaturatedSeconds), meaning: 'the same for saturated (above `LOAD_BUSY_SECONDS`)' },
  LOAD_BUSY_CAPACITY: { schema: ratio(D.loadBusyCapacity), unit: 'share (0-1]', meaning: 'share of probe capacity in use at which load turns busy' },
  LOAD_SATURATED_CAPACITY: { schema: ratio(D.loadSaturatedCapacity), unit: 'share (0-1]', meaning: 'the same for saturated (above `LOAD_BUSY_CAPACITY`)' },
  THROUGHPUT_HALF_LIFE_MS: { schema: ms(D.throughputHalfLifeMs, 100), meaning: 'half-life of the smoothing of published expected seconds (load.ts `smoothLoad`)' },
  IDLE_SECONDS_PER_SINGLE: { schema: positive(D.idleSecondsPerSingle), unit: 's', meaning: 'seconds a single check takes on an idle system (the floor of `seconds_per_single`)' },
  CACHE_RETENTION_DAYS: { schema: env.int(D.cacheRetentionDays, 1, 365), meaning: 'shared verification cache entries live this long' },
});

/** After the notify rows. */
export const SCHEDULER_LINK_TUNABLES = tunables({
  PUBLIC_BASE_URL: {
    schema: env.url(['http:', 'https:']).default(D.publicBaseUrl).transform((v) => v.replace(/\/+$/, '')),
    meaning: "where customers reach the gateway: absolute links in webhook bodies and emails (the gateway's value); a loopback address is refused when `NODE_ENV=production`",
  },
  DOWNLOAD_SIGNING_SECRET: {
    schema: z.string().min(32, 'must be at least 32 characters').optional(),
    defaultText: 'a random key for this process, with a warning; **required** when `NODE_ENV=production`',
    meaning: "HMAC key of signed CSV links (or `_FILE`); must equal the gateway's",
  },
});
