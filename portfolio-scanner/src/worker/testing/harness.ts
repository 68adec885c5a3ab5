// Test harness of the scan workers and the planner: a private nats-server per test file (no other
// file's workers take its messages), a MongoDB database and Redis key prefix of its own, the
// simulated DNS world, and in-process workers and planners, each with its own NATS connection so
// one can be "killed" (abandon) while the others go on.
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { Redis } from 'ioredis';
import type { Db } from 'mongodb';
import { Registry } from 'prom-client';
import { CONSUMERS, STREAMS, natsInboxPrefix, type ConsumerDef } from '@dv/contracts';
import { DnsResolver } from '@dv/mailsec';
import { createLogger, ensureStreams, natsManager, type MongoDependency } from '@dv/runtime';
import { applySchema } from '@dv/stack';
import { REPO_ROOT, startStack } from '@dv/stack';
import type { WorldHandle } from '@dv/world';
import { isolatedMongo } from '@dv/runtime/testing';
import { stackEnv, until as sharedUntil } from '@dv/test-kit';
import type { GeoLookup } from '../../geo/types.ts';
import { Planner, type PlannerConfig } from '../../planner/index.ts';
import { SharedDnsCache } from '../../scan/index.ts';
import { startPortfolioWorld } from '../../scan/testing/world.ts';
import { PORTFOLIO_STREAM } from '../stream.ts';
import { ScanWorker, type ScanWorkerConfig, type ScanWorkerDeps } from '../worker.ts';

const NULL_GEO: GeoLookup = { lookup: () => ({ country: null, region: null, city: null, lat: null, lon: null, asn: null, asn_name: null }) };

/** Short ack wait and few deliveries so crash and failure paths take seconds, not minutes. */
export const TEST_ACK_WAIT_MS = 2_000;
export const TEST_MAX_DELIVER = 3;

export const TEST_WORKER_CONFIG: ScanWorkerConfig = {
  PORTFOLIO_RESCAN_INTERVAL_S: 86_400,
  PORTFOLIO_SCAN_CONCURRENCY: 8,
  PORTFOLIO_SCAN_PRIORITY_RESERVE: 1,
  PORTFOLIO_SCAN_RETRY_BASE_MS: 100,
  PORTFOLIO_SCAN_RETRY_MAX_MS: 400,
  PORTFOLIO_FULL_DKIM_SWEEP_INTERVAL_S: 604_800,
};

export interface RunningWorker {
  worker: ScanWorker;
  registry: Registry;
  nc: NatsConnection;
  /** Clean stop (drain). */
  stop(drainMs?: number): Promise<void>;
  /** Like SIGKILL: nothing in hand is answered; the connection closes without draining. */
  kill(): Promise<void>;
}

export interface ScanHarness {
  nc: NatsConnection;
  db: Db;
  mongo: MongoDependency;
  world: WorldHandle;
  redisUrl: string;
  redisPrefix: string;
  /** NATS/Redis/MongoDB/DNS settings for a scanner process of this file. */
  env: Record<string, string>;
  /** Where processes of this file write their logs (removed with the harness). */
  logDir: string;
  startWorker(opts?: { config?: Partial<ScanWorkerConfig>; scanDomain?: ScanWorkerDeps['scanDomain']; storeScans?: ScanWorkerDeps['storeScans'] }): Promise<RunningWorker>;
  startPlanner(config?: Partial<PlannerConfig>, opts?: { start?: boolean }): Promise<{ planner: Planner; stop(): Promise<void>; kill(): void }>;
  /** Kills every worker still running (afterEach: a failed test's worker must not take the next test's messages). */
  killWorkers(): Promise<void>;
  stop(): Promise<void>;
}

export async function startScanHarness(label: string): Promise<ScanHarness> {
  const shared = stackEnv();
  const tag = `${label}-${process.pid}-${randomBytes(3).toString('hex')}`;
  const dataDir = join(REPO_ROOT, '.local', `pf-${tag}`);
  const nats = await startStack({ dataDir, servers: ['nats'] });
  const natsUrl = nats.env.NATS_URL as string;
  const nc = await connect({ servers: natsUrl });
  const consumers: ConsumerDef[] = CONSUMERS.map((c) => (c.stream === PORTFOLIO_STREAM ? { ...c, ackWaitMs: TEST_ACK_WAIT_MS, maxDeliver: TEST_MAX_DELIVER } : c));
  await ensureStreams(await natsManager(nc), STREAMS, consumers);
  const mongo = await isolatedMongo(`pf_${label}`);
  await applySchema(mongo.db);
  const world = await startPortfolioWorld();
  const log = createLogger('portfolio-test', 'error');
  const cleanups: Array<() => Promise<unknown>> = [];
  const workers: RunningWorker[] = [];
  const redisPrefix = `t:${tag}:`;

  return {
    nc,
    db: mongo.db,
    mongo,
    world,
    redisUrl: shared.REDIS_URL as string,
    redisPrefix,
    logDir: join(dataDir, 'logs'),
    env: { NATS_URL: natsUrl, NATS_USERS_DIR: nats.env.NATS_USERS_DIR as string, REDIS_URL: shared.REDIS_URL as string, MONGODB_URL: shared.MONGODB_URL as string, MONGODB_DB: mongo.db.databaseName, REDIS_PREFIX: redisPrefix, DNS_SERVERS: world.dns.server, DNS_CANARIES: world.env.DNS_CANARIES ?? '' },
    async startWorker(opts = {}) {
      const own = await connectAsScanner(natsUrl, nats.env.NATS_USERS_DIR as string);
      // One retry: a first scan on a busy machine must not lose an answer to a slow start.
      const resolver = new DnsResolver({ servers: world.dns.server, timeoutMs: 300, retries: 1 });
      const registry = new Registry();
      const worker = new ScanWorker({
        nc: own,
        db: mongo.db,
        log,
        registry,
        config: { ...TEST_WORKER_CONFIG, ...opts.config },
        scanDeps: { resolver, geo: NULL_GEO, shared: new SharedDnsCache({ maxEntries: 1000, maxTtlS: 60 }) },
        ...(opts.scanDomain ? { scanDomain: opts.scanDomain } : {}),
        ...(opts.storeScans ? { storeScans: opts.storeScans } : {}),
      });
      await worker.start();
      let done = false;
      const finish = async (how: () => Promise<void>) => {
        if (done) return;
        done = true;
        await how();
        resolver.close();
      };
      const running: RunningWorker = {
        worker,
        registry,
        nc: own,
        stop: (drainMs = 3_000) => finish(async () => {
          await worker.stop(drainMs);
          await own.drain().catch(() => undefined);
        }),
        kill: () => finish(async () => {
          await worker.abandon();
          await own.close().catch(() => undefined);
        }),
      };
      cleanups.push(() => running.kill());
      workers.push(running);
      return running;
    },
    async startPlanner(config = {}, opts = {}) {
      const own = await connectAsScanner(natsUrl, nats.env.NATS_USERS_DIR as string);
      const redis = new Redis(shared.REDIS_URL as string);
      const planner = new Planner({
        nc: own,
        db: mongo.db,
        redis,
        log,
        config: {
          REDIS_PREFIX: redisPrefix,
          PORTFOLIO_RESCAN_INTERVAL_S: 86_400,
          PORTFOLIO_PLAN_TICK_MS: 200,
          PORTFOLIO_PLAN_BATCH: 1_000,
          PORTFOLIO_PLAN_DELAY_MS: 500,
          PORTFOLIO_PLAN_GRACE_S: 600,
          PORTFOLIO_PLANNER_LEASE_MS: 1_500,
          ...config,
        },
      });
      if (opts.start !== false) planner.start();
      let done = false;
      const close = async () => {
        await own.close().catch(() => undefined);
        redis.disconnect();
      };
      const p = {
        planner,
        stop: async () => {
          if (done) return;
          done = true;
          await planner.stop();
          await close();
        },
        kill: () => {
          if (done) return;
          done = true;
          planner.halt();
          void close();
        },
      };
      cleanups.push(p.stop);
      return p;
    },
    async killWorkers() {
      for (const w of workers.splice(0)) await w.kill().catch(() => undefined);
    },
    async stop() {
      for (const c of cleanups.reverse()) await c().catch(() => undefined);
      await nc.drain().catch(() => undefined);
      await world.stop();
      await mongo.db.dropDatabase().catch(() => undefined);
      await mongo.close();
      await nats.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The shared poll, every 50 ms (scan tests time what happens within a few seconds). */
export const until = <T>(check: () => Promise<T> | T, timeoutMs: number, what = 'condition'): Promise<NonNullable<T>> => sharedUntil(check, timeoutMs, what, 50);

/** A counter's value for one label set, from a registry (0 when never counted). */
export async function counterValue(registry: Registry, name: string, labels: Record<string, string> = {}): Promise<number> {
  const metric = registry.getSingleMetric(name);
  if (!metric) return 0;
  const data = await metric.get();
  return data.values.filter((v) => Object.entries(labels).every(([k, val]) => v.labels[k] === val)).reduce((s, v) => s + v.value, 0);
}

/** Workers and planners connect as the scanner's bus user (NATS_ROLES), as in production: the tests run their NATS work permissioned. */
function connectAsScanner(servers: string, usersDir: string): Promise<NatsConnection> {
  const user = 'portfolio-scanner';
  return connect({ servers, user, pass: readFileSync(join(usersDir, user), 'utf8').trim(), inboxPrefix: natsInboxPrefix(user) });
}
