import type { Redis } from 'ioredis';
import type { Db } from 'mongodb';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Registry } from 'prom-client';
import { AuthMarks } from '@dv/accounts';
import { AuthAttemptLimiter, JetStreamPublisher, type Logger } from '@dv/runtime';
import type { GatewayConfig } from './config.ts';
import { GATEWAY_DEFAULTS as D } from './defaults.ts';
import { createGatewayMetrics, type GatewayMetrics } from './metrics.ts';
import type { OAuthStore } from '@dv/oauth';
import { gatewayOAuthStore } from './oauth/store.ts';
import { AuthService } from './services/auth.ts';
import { Idempotency } from './services/idempotency.ts';
import { JobService } from './services/jobs.ts';
import { Limits } from './services/limits.ts';
import { LoadReader } from './services/load.ts';
import { ResultStore } from './services/results.ts';
import { DoneWaiter } from './services/waiter.ts';

// Everything a handler needs, built once per process. The services are transport-free so the
// MCP server (routes/mcp.ts) can call the same ones.

export interface GatewayContext {
  config: GatewayConfig;
  downloadSecret: string;
  log: Logger;
  db: Db;
  redis: Redis;
  nc: NatsConnection;
  auth: AuthService;
  /** Revocation marks (@dv/accounts auth-marks.ts): written by every path that takes a credential's power away. */
  marks: AuthMarks;
  /** OAuth clients, codes and tokens (docs/oauth.md). */
  oauth: OAuthStore;
  limits: Limits;
  idempotency: Idempotency;
  jobs: JobService;
  results: ResultStore;
  waiter: DoneWaiter;
  load: LoadReader;
  metrics: GatewayMetrics;
  /** Aborted when the process starts draining: long-polls return early. */
  shutdownSignal: AbortSignal;
}

export interface ContextOptions {
  config: GatewayConfig;
  downloadSecret: string;
  log: Logger;
  registry: Registry;
  db: Db;
  redis: Redis;
  nc: NatsConnection;
  shutdownSignal: AbortSignal;
}

export function createGatewayContext(o: ContextOptions): GatewayContext {
  const prefix = o.config.REDIS_KEY_PREFIX;
  const limits: Limits = new Limits({ redis: o.redis, prefix, slotMaxAgeSeconds: D.inFlightSlotMaxAgeSeconds, runningJobs: (acc, kind): Promise<string[]> => jobs.runningJobIds(acc, kind) });
  const jobs: JobService = new JobService({ db: o.db, publisher: new JetStreamPublisher(o.nc), limits, log: o.log, itemInsertBatch: D.itemInsertBatch, batchConcurrency: D.batchConcurrency, singleWriteBatchMax: D.singleWriteBatchMax, singleWriteInFlight: D.singleWriteInFlight, publishRetry: { attempts: D.publishAttempts, baseDelayMs: D.publishRetryBaseMs, windowMs: D.publishRetryWindowMs }, idempotencyWindowSeconds: D.idempotencyTtlSeconds, backgroundPublishMaxJobs: D.backgroundPublishMaxJobs });
  const waiter = new DoneWaiter(o.nc);
  const oauth = gatewayOAuthStore(o.db);
  const marks = new AuthMarks(o.redis);
  return {
    config: o.config,
    downloadSecret: o.downloadSecret,
    log: o.log,
    db: o.db,
    redis: o.redis,
    nc: o.nc,
    auth: new AuthService({
      db: o.db,
      log: o.log,
      upgradeUrl: o.config.UPGRADE_URL ?? `${o.config.PUBLIC_BASE_URL}${D.upgradePath}`,
      planPageUrl: `${o.config.PUBLIC_BASE_URL}${D.upgradePath}`,
      cacheTtlMs: o.config.AUTH_CACHE_TTL_MS,
      lastUsedThrottleMs: D.lastUsedThrottleMs,
      oauth,
      marks,
      attempts: new AuthAttemptLimiter({ redis: o.redis, keyPrefix: `${prefix}authip`, pointsPerMinute: o.config.AUTH_ATTEMPTS_PER_IP_PER_MINUTE, failurePoints: o.config.AUTH_FAILURE_POINTS }),
      negativeCacheTtlMs: o.config.AUTH_NEGATIVE_CACHE_TTL_MS,
      negativeCacheMaxEntries: D.authNegativeCacheMaxEntries,
    }),
    marks,
    oauth,
    limits,
    idempotency: new Idempotency({ redis: o.redis, prefix, ttlSeconds: D.idempotencyTtlSeconds, pendingTtlSeconds: D.idempotencyPendingTtlSeconds, pollMs: D.idempotencyPollMs }),
    jobs,
    results: new ResultStore(o.db, { lookupBatchMax: D.lookupReadBatchMax, lookupInFlight: D.lookupReadInFlight }),
    waiter,
    load: new LoadReader({ nc: o.nc, log: o.log, staleAfterMs: D.loadStaleAfterMs, refreshMs: D.loadRefreshMs, fallbackSecondsPerSingle: D.fallbackSecondsPerSingle, fallbackSecondsPer1000: D.fallbackSecondsPer1000 }),
    metrics: createGatewayMetrics(o.registry, () => waiter.size),
    shutdownSignal: o.shutdownSignal,
  };
}

export async function startContext(ctx: GatewayContext): Promise<void> {
  ctx.waiter.start();
  await Promise.all([ctx.auth.start(), ctx.load.start()]);
}

export async function stopContext(ctx: GatewayContext): Promise<void> {
  await ctx.jobs.drain();
  await ctx.waiter.stop();
  ctx.load.stop();
  await ctx.auth.stop();
}
