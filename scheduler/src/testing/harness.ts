// Test harness: each scheduler test file gets its own nats-server (so no other test file's
// scheduler or probe node steals its VERIFY messages), its own MongoDB database and Redis key
// prefix on the run's shared servers, and helpers to run schedulers in process or as processes
// and probe nodes as processes against the simulated internet.
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { Redis } from 'ioredis';
import type { Db } from 'mongodb';
import { Registry } from 'prom-client';
import { CONSUMERS, KV_BUCKETS, STREAMS, natsInboxPrefix } from '@dv/contracts';
import { connectRedis, createLogger, ensureKvBuckets, ensureStreams, natsManager, type MongoDependency } from '@dv/runtime';
import { applySchema } from '@dv/stack';
import { startServiceProcess, type RunningProcess } from '@dv/stack';
import { REPO_ROOT, startStack, type Stack } from '@dv/stack';
import { isolatedMongo } from '@dv/runtime/testing';
import { stackEnv } from '@dv/test-kit';
import { schedulerConfigSchema } from '../config.ts';
import { Scheduler } from '../scheduler.ts';

export interface Harness {
  nats: Stack;
  nc: NatsConnection;
  mongo: MongoDependency;
  db: Db;
  redis: Redis;
  /** NATS/Redis/MongoDB settings (and the Redis prefix) for schedulers and probe nodes of this file. */
  env: Record<string, string>;
  logDir: string;
  startScheduler(extra?: Record<string, string>): Promise<{ scheduler: Scheduler; stop: () => Promise<void> }>;
  startSchedulerProcess(extra?: Record<string, string>): Promise<RunningProcess>;
  startProbe(nodeId: string, sourceIps: string[], worldEnv: Record<string, string>, extra?: Record<string, string>): Promise<RunningProcess>;
  stop(): Promise<void>;
}

/** Defaults that make the pipeline fast on a loaded 2-core box without changing its rules. */
export const FAST_ENV: Record<string, string> = {
  BATCH_WINDOW_MS: '100',
  SWEEP_INTERVAL_MS: '200',
  LOAD_INTERVAL_MS: '500',
  DNS_TIMEOUT_MS: '500',
  DNS_RETRIES: '1',
  DNS_RETRY_DELAY_MS: '50',
  PROBE_NODE_GONE_MS: '3000',
  PROBE_SESSION_TIMEOUT_MS: '15000',
  PROBE_REQUEST_MARGIN_MS: '3000',
  SESSION_LEASE_MS: '20000',
  LOG_LEVEL: 'warn',
};

export async function startHarness(label: string): Promise<Harness> {
  const shared = stackEnv();
  const tag = `${label}-${process.pid}-${randomBytes(3).toString('hex')}`;
  const dataDir = join(REPO_ROOT, '.local', `sched-${tag}`);
  const nats = await startStack({ dataDir, servers: ['nats'] });
  const nc = await connect({ servers: nats.env.NATS_URL, maxReconnectAttempts: -1, reconnectTimeWait: 250 });
  await ensureStreams(await natsManager(nc), STREAMS, CONSUMERS);
  await ensureKvBuckets(nc, KV_BUCKETS);
  const mongo = await isolatedMongo(`sch_${label}`);
  await applySchema(mongo.db);
  const redis = new Redis(shared.REDIS_URL as string);
  const logDir = join(dataDir, 'logs');
  const env: Record<string, string> = {
    NATS_URL: nats.env.NATS_URL as string,
    // Scheduler and probe-node processes connect as their own bus users.
    NATS_USERS_DIR: nats.env.NATS_USERS_DIR as string,
    REDIS_URL: shared.REDIS_URL as string,
    MONGODB_URL: shared.MONGODB_URL as string,
    MONGODB_DB: mongo.db.databaseName,
    REDIS_PREFIX: `t:${tag}:`,
    // The key the gateway harness checks links with, so links in completion emails verify there.
    DOWNLOAD_SIGNING_SECRET: 'test-download-secret-test-download-secret',
  };
  const running: Array<() => Promise<unknown>> = [];

  return {
    nats,
    nc,
    mongo,
    db: mongo.db,
    redis,
    env,
    logDir,
    async startScheduler(extra = {}) {
      const config = schedulerConfigSchema.parse({ ...FAST_ENV, ...env, ...extra });
      // As its bus user (NATS_ROLES 'scheduler'), as in production: scheduler tests run permissioned.
      const own = await connect({ servers: env.NATS_URL, maxReconnectAttempts: -1, reconnectTimeWait: 250, user: 'scheduler', pass: readFileSync(join(env.NATS_USERS_DIR as string, 'scheduler'), 'utf8').trim(), inboxPrefix: natsInboxPrefix('scheduler') });
      const log = createLogger('scheduler', config.LOG_LEVEL);
      // The Redis client main.ts gets (commands fail at once while Redis is down, no queueing), on
      // this file's Redis unless the test brings its own (REDIS_URL in `extra`).
      const ownRedis = await connectRedis(extra.REDIS_URL ?? (env.REDIS_URL as string), log);
      const scheduler = new Scheduler({ nc: own, redis: ownRedis.redis, db: mongo.db, config, log, registry: new Registry() });
      await scheduler.start();
      let stopped = false;
      const stop = async () => {
        if (stopped) return;
        stopped = true;
        await scheduler.stop(3_000);
        await own.drain().catch(() => undefined);
        await ownRedis.close();
      };
      running.push(stop);
      return { scheduler, stop };
    },
    async startSchedulerProcess(extra = {}) {
      const proc = await startServiceProcess('scheduler', { env: { ...FAST_ENV, ...env, ...extra }, logDir });
      running.push(() => proc.stop(5_000));
      return proc;
    },
    async startProbe(nodeId, sourceIps, worldEnv, extra = {}) {
      const proc = await startServiceProcess('probe-node', {
        env: {
          ...worldEnv,
          NATS_URL: env.NATS_URL as string,
          NATS_USERS_DIR: env.NATS_USERS_DIR as string,
          PROBE_NODE_ID: nodeId,
          PROBE_SOURCE_IPS: sourceIps.join(','),
          PROBE_HELO_NAME: 'probe.test',
          PROBE_MAIL_FROM: 'verify@probe.test',
          PROBE_HEARTBEAT_INTERVAL_MS: '500',
          // The simulated world's MX hosts live on 127.x.
          PROBE_ALLOW_PRIVATE_MX: 'true',
          LOG_LEVEL: 'warn',
          ...extra,
        },
        logDir,
      });
      running.push(() => proc.stop(5_000));
      return proc;
    },
    async stop() {
      for (const stop of running.reverse()) await stop().catch(() => undefined);
      await nc.drain().catch(() => undefined);
      redis.disconnect();
      await mongo.db.dropDatabase().catch(() => undefined);
      await mongo.close();
      await nats.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export { until } from '@dv/test-kit';
