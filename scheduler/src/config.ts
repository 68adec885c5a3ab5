import { z } from 'zod';
import { downloadSecretProductionRules, notifyConfigSchema, notifyProductionRules } from '@dv/notify';
import { env, serviceSchema, unsafe, type ProductionRules } from '@dv/runtime';
import { RETRY_POLICY, type RetryPolicy } from '@dv/verdict';
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

export const schedulerConfigSchema = z
  .object({
    ...serviceSchema(D.port),
    /** Resolvers for MX lookups (`host` or `host:port`, comma-separated); empty = the system's. */
    DNS_SERVERS: env.hostPorts(),
    /** Prefix of every Redis key (politeness, DNS cache, catch-all memory): replicas of one deployment share it. */
    REDIS_PREFIX: z.string().regex(/^[A-Za-z0-9_:.-]{1,64}$/, 'must be 1-64 letters, digits, _ : . or -').default(D.redisPrefix),
    VERIFY_STREAM: name(D.verifyStream),
    SINGLE_CONSUMER: name(D.singleConsumer),
    LIST_CONSUMER: name(D.listConsumer),
    MAX_ITEMS_IN_FLIGHT: env.int(D.maxItemsInFlight, 1, 1_000_000),
    SINGLE_RESERVE: env.int(D.singleReserve, 0, 100_000),
    STORE_BACKLOG_MAX: env.int(D.storeBacklogMax, 1, 1_000_000),
    STORE_COALESCE_MS: env.int(D.storeCoalesceMs, 0, 10_000),
    STORE_BATCH_MAX: env.int(D.storeBatchMax, 1, 10_000),
    STORE_PARALLEL_FLUSHES: env.int(D.storeParallelFlushes, 1, 64),
    FETCH_BATCH: env.int(D.fetchBatch, 1, 10_000),
    ACK_PROGRESS_INTERVAL_MS: ms(D.ackProgressIntervalMs, 100),
    DNS_TIMEOUT_MS: ms(D.dnsTimeoutMs, 10, 60_000),
    DNS_RETRIES: env.int(D.dnsRetries, 0, 10),
    DNS_RETRY_DELAY_MS: ms(D.dnsRetryDelayMs, 0),
    DNS_CACHE_MAX_TTL_S: env.int(D.dnsCacheMaxTtlS, 0, 86_400),
    DNS_NEGATIVE_TTL_S: env.int(D.dnsNegativeTtlS, 0, 86_400),
    DNS_CANARIES: env.domainList(D.dnsCanaries),
    DNS_CANARY_INTERVAL_MS: ms(D.dnsCanaryIntervalMs, 100),
    DNS_CANARY_UNRELIABLE_INTERVAL_MS: ms(D.dnsCanaryUnreliableIntervalMs, 100),
    BATCH_WINDOW_MS: ms(D.batchWindowMs, 0, 60_000),
    MAX_RCPTS_PER_SESSION: env.int(D.maxRcptsPerSession, 1, 100),
    MAX_CUT_REDISPATCHES: env.int(D.maxCutRedispatches, 0, 100),
    POLITE_MAX_SESSIONS: env.int(D.politeMaxSessions, 0, 1_000),
    POLITE_SESSIONS_PER_MIN: env.int(D.politeSessionsPerMin, 0, 100_000),
    POLITE_RCPTS_PER_SESSION: env.int(D.politeRcptsPerSession, 0, 100),
    SESSION_LEASE_MS: ms(D.sessionLeaseMs, 1_000),
    SLOT_RELEASE_DELAY_MS: ms(D.slotReleaseDelayMs, 0, 10_000),
    PROVIDER_PAUSE_INITIAL_MS: ms(D.providerPauseInitialMs, 10),
    PROVIDER_PAUSE_MAX_MS: ms(D.providerPauseMaxMs, 10),
    IP_BLOCK_MS: ms(D.ipBlockMs, 10),
    MX_DOWN_MS: ms(D.mxDownMs, 10),
    MX_DOWN_TIMEOUT_MS: ms(D.mxDownTimeoutMs, 10),
    PARK_THRESHOLD_MS: ms(D.parkThresholdMs, 0),
    GREYLIST_LADDER_MINUTES: ladder(D.greylistLadderMinutes),
    GREYLIST_LADDER_SCALE: positive(D.greylistLadderScale),
    TEMP_FAILURE_LADDER_MINUTES: ladder(D.tempFailureLadderMinutes),
    SWEEP_INTERVAL_MS: ms(D.sweepIntervalMs, 10, 600_000),
    SWEEP_BATCH: env.int(D.sweepBatch, 1, 100_000),
    UNPUBLISHED_AFTER_MS: ms(D.unpublishedAfterMs, 100, 110_000),
    CATCH_ALL_MEMORY_MS: ms(D.catchAllMemoryMs, 0, 30 * 86_400_000),
    PROBE_NODE_GONE_MS: ms(D.probeNodeGoneMs, 100),
    PROBE_EGRESS_FAULT_MS: ms(D.probeEgressFaultMs, 100),
    PROBE_SESSION_TIMEOUT_MS: ms(D.probeSessionTimeoutMs, 100, 600_000),
    PROBE_REQUEST_MARGIN_MS: ms(D.probeRequestMarginMs, 0, 600_000),
    PROBE_MAIL_FROM: z.email('must be an email address').default(D.probeMailFrom),
    PROBE_REDISPATCH_MAX: env.int(D.probeRedispatchMax, 0, 100),
    VERIFY_MAX_DELIVERIES: env.int(D.verifyMaxDeliveries, 2, 1_000),
    LOAD_INTERVAL_MS: ms(D.loadIntervalMs, 50, 600_000),
    LOAD_KEY: name(D.loadKey),
    LOAD_BUSY_SECONDS: positive(D.loadBusySeconds),
    LOAD_SATURATED_SECONDS: positive(D.loadSaturatedSeconds),
    LOAD_BUSY_CAPACITY: ratio(D.loadBusyCapacity),
    LOAD_SATURATED_CAPACITY: ratio(D.loadSaturatedCapacity),
    THROUGHPUT_HALF_LIFE_MS: ms(D.throughputHalfLifeMs, 100),
    IDLE_SECONDS_PER_SINGLE: positive(D.idleSecondsPerSingle),
    CACHE_RETENTION_DAYS: env.int(D.cacheRetentionDays, 1, 365),
    // Completion webhooks and emails (@dv/notify, docs/notify.md) run in the scheduler, next to the
    // completions that trigger them.
    ...notifyConfigSchema,
    /** Where customers reach the gateway: absolute links in webhook bodies and emails (same value as the gateway's). */
    PUBLIC_BASE_URL: env.url(['http:', 'https:']).default(D.publicBaseUrl).transform((v) => v.replace(/\/+$/, '')),
    /** HMAC key of signed CSV links; must equal the gateway's (required when NODE_ENV=production). */
    DOWNLOAD_SIGNING_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  })
  .superRefine((c, ctx) => {
    if (c.LOAD_SATURATED_SECONDS <= c.LOAD_BUSY_SECONDS) ctx.addIssue({ code: 'custom', path: ['LOAD_SATURATED_SECONDS'], message: 'must exceed LOAD_BUSY_SECONDS' });
    if (c.LOAD_SATURATED_CAPACITY <= c.LOAD_BUSY_CAPACITY) ctx.addIssue({ code: 'custom', path: ['LOAD_SATURATED_CAPACITY'], message: 'must exceed LOAD_BUSY_CAPACITY' });
    if (c.PROVIDER_PAUSE_MAX_MS < c.PROVIDER_PAUSE_INITIAL_MS) ctx.addIssue({ code: 'custom', path: ['PROVIDER_PAUSE_MAX_MS'], message: 'must not be below PROVIDER_PAUSE_INITIAL_MS' });
    // A slot must outlive the longest session it guards, or a slow session would let a new one in.
    if (c.SESSION_LEASE_MS < c.PROBE_SESSION_TIMEOUT_MS + c.PROBE_REQUEST_MARGIN_MS) {
      ctx.addIssue({ code: 'custom', path: ['SESSION_LEASE_MS'], message: 'must be at least PROBE_SESSION_TIMEOUT_MS + PROBE_REQUEST_MARGIN_MS' });
    }
  });
export type SchedulerConfig = z.infer<typeof schedulerConfigSchema>;

/** Refused when NODE_ENV=production (loadConfig lists every one; the process exits 78). */
export const schedulerProductionRules: ProductionRules<SchedulerConfig> = {
  PUBLIC_BASE_URL: unsafe.loopbackUrl(),
  ...downloadSecretProductionRules,
  PROBE_MAIL_FROM: unsafe.localhostEmail(),
  ...notifyProductionRules,
};

/**
 * The retry policy as nextAction() takes it: both ladders in (scaled) minutes after the first try,
 * the throttle pause and the IP block, from the settings (whose defaults are @dv/verdict's data).
 */
export function retryPolicy(
  config: Pick<SchedulerConfig, 'GREYLIST_LADDER_MINUTES' | 'TEMP_FAILURE_LADDER_MINUTES' | 'GREYLIST_LADDER_SCALE' | 'PROVIDER_PAUSE_INITIAL_MS' | 'PROVIDER_PAUSE_MAX_MS' | 'IP_BLOCK_MS'>,
): RetryPolicy {
  const scale = (steps: readonly number[]) => steps.map((m) => m * config.GREYLIST_LADDER_SCALE);
  return {
    greylist: scale(config.GREYLIST_LADDER_MINUTES),
    temporary: scale(config.TEMP_FAILURE_LADDER_MINUTES),
    throttlePause: { initialMs: config.PROVIDER_PAUSE_INITIAL_MS, factor: RETRY_POLICY.throttlePause.factor, maxMs: config.PROVIDER_PAUSE_MAX_MS },
    ipBlockMs: config.IP_BLOCK_MS,
  };
}
