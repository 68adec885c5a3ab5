import { createServer, type Server } from 'node:http';
import type { Express } from 'express';
import { Counter, type Registry } from 'prom-client';
import type { z } from 'zod';
import { ALL_COLLECTIONS, CONSUMERS, KV_BUCKETS, NATS_ROLES, STREAMS, type ConsumerDef, type KvBucketDef, type NatsUser, type StreamDef } from '@dv/contracts';
import { loadConfigOrExit } from './config.ts';
import type { Dependency } from './dependency.ts';
import { createHttpApp, finishHttpApp } from './http.ts';
import { createLogger, type Logger } from './logger.ts';
import { RUNTIME_METRICS, createRegistry } from './metrics.ts';
import { connectMongo, ensureCollections, type MongoDependency } from './mongo.ts';
import { StreamReplicasError, connectNats, ensureKvBuckets, ensureStreams, natsManager, type NatsDependency } from './nats.ts';
import { connectRedis, type RedisDependency } from './redis.ts';
import { NATS_PRODUCTION_RULES, type ProductionRules } from './production.ts';
import { installFatalHandlers, installGracefulShutdown } from './shutdown.ts';

/** Settings every service schema carries (see `serviceSchema`). */
export interface BaseServiceConfig {
  HOST: string;
  PORT: number;
  LOG_LEVEL: string;
  SHUTDOWN_TIMEOUT_MS: number;
  SHUTDOWN_DELAY_MS: number;
  READINESS_GRACE_MS: number;
  NODE_ENV: string;
  BEHIND_PROXY: boolean;
  TRUSTED_PROXIES: readonly string[];
  NATS_URL: string;
  NATS_STREAM_REPLICAS: number;
  NATS_USER?: string;
  NATS_PASSWORD?: string;
  REDIS_URL: string;
  REDIS_SENTINELS: readonly string[];
  REDIS_SENTINEL_NAME?: string;
  MONGODB_URL: string;
  MONGODB_DB: string;
}

export interface ServiceContext<C extends BaseServiceConfig> {
  readonly name: string;
  readonly config: C;
  readonly log: Logger;
  readonly registry: Registry;
  readonly nats?: NatsDependency;
  readonly redis?: RedisDependency;
  readonly mongo?: MongoDependency;
  /** Aborted when shutdown begins: long-polls and loops end early on it. */
  readonly shutdownSignal: AbortSignal;
}

export interface ServiceDefinition<S extends z.ZodObject> {
  name: string;
  schema: S;
  needs: { nats?: boolean; redis?: boolean; mongo?: boolean };
  /** Settings refused when NODE_ENV=production (the common proxy rule applies to every service). */
  unsafeInProduction?: ProductionRules<z.infer<S>>;
  /** Mount the service's routes. */
  routes?: (app: Express, ctx: ServiceContext<z.infer<S> & BaseServiceConfig>) => void | Promise<void>;
  /** Start background work (consumers, timers) once connected. */
  start?: (ctx: ServiceContext<z.infer<S> & BaseServiceConfig>) => Promise<void>;
  /** Stop taking work and finish what is in hand; called on SIGTERM before connections close. */
  stop?: (ctx: ServiceContext<z.infer<S> & BaseServiceConfig>) => Promise<void>;
  /** Reasons the process cannot work as usual right now, listed by /readyz as `degraded` (still 200). */
  degraded?: () => readonly string[];
  /** Dependencies of the service's own making (e.g. its DNS resolver), judged by /readyz like the servers. */
  dependencies?: () => readonly Dependency[];
}

export interface RunningService {
  server: Server;
  url: string;
  shutdown: () => Promise<void>;
}

/**
 * The one way a process starts: validated config (exit with every bad variable listed), JSON logs,
 * metrics, connections (with declared streams, consumers, buckets, collections and indexes applied
 * idempotently), HTTP with health/readiness/metrics, and graceful shutdown on SIGTERM.
 */
export async function runService<S extends z.ZodObject>(def: ServiceDefinition<S>): Promise<RunningService> {
  const productionRules = { ...(def.needs.nats ? NATS_PRODUCTION_RULES : {}), ...def.unsafeInProduction } as ProductionRules<z.infer<S>>;
  const config = loadConfigOrExit(def.name, def.schema, process.env, productionRules) as z.infer<S> & BaseServiceConfig;
  const log = createLogger(def.name, config.LOG_LEVEL);
  installFatalHandlers(log);
  const registry = createRegistry(def.name);
  const abort = new AbortController();
  let shuttingDown = false;

  const deps: Dependency[] = [];
  let nats: NatsDependency | undefined;
  let redis: RedisDependency | undefined;
  let mongo: MongoDependency | undefined;
  // A server that is still starting (or just elected primary, which drops connections) is retried
  // for a while: in Kubernetes a pod often starts before its servers are ready.
  const connectTimeoutMs = 30_000;
  try {
    if (def.needs.nats) {
      const auth = config.NATS_USER ? { user: config.NATS_USER, password: config.NATS_PASSWORD ?? '' } : undefined;
      // Only what this service's bus user may manage (NATS_ROLES): a probe node creates no stream.
      const owned = natsOwned(def.name);
      // The bus refused a subject this service's user lacks: NATS_ROLES and the server's users disagree (alert NatsPermissionDenied).
      const denied = new Counter({ name: RUNTIME_METRICS.natsPermissionViolations, help: 'Publishes and subscriptions the NATS server refused to this service\'s bus user (permission violations)', registers: [registry] });
      nats = await retrying('nats', connectTimeoutMs, log, () => connectNats(config.NATS_URL, def.name, log, auth, { onPermissionViolation: () => denied.inc() }), async (dep) => {
        const replicas = { replicas: config.NATS_STREAM_REPLICAS, log };
        if (owned.streams.length > 0) await ensureStreams(await natsManager(dep.nc), owned.streams, owned.consumers, replicas);
        if (owned.buckets.length > 0) await ensureKvBuckets(dep.nc, owned.buckets, replicas);
      });
      deps.push(nats);
    }
    if (def.needs.redis) {
      const sentinel = config.REDIS_SENTINEL_NAME ? { sentinels: config.REDIS_SENTINELS, name: config.REDIS_SENTINEL_NAME } : undefined;
      redis = await retrying('redis', connectTimeoutMs, log, () => connectRedis(config.REDIS_URL, log, sentinel));
      deps.push(redis);
    }
    if (def.needs.mongo) {
      mongo = await retrying('mongodb', connectTimeoutMs, log, () => connectMongo(config.MONGODB_URL, config.MONGODB_DB), (dep) => ensureCollections(dep.db, ALL_COLLECTIONS));
      deps.push(mongo);
    }
  } catch (err) {
    log.fatal({ err }, 'could not connect to a required server at start');
    await Promise.all(deps.map((d) => d.close().catch(() => undefined)));
    process.exit(1);
  }

  const ctx: ServiceContext<z.infer<S> & BaseServiceConfig> = { name: def.name, config, log, registry, nats, redis, mongo, shutdownSignal: abort.signal };
  const app = createHttpApp({ registry, log, dependencies: () => [...deps, ...(def.dependencies?.() ?? [])], isShuttingDown: () => shuttingDown, trustedProxies: config.TRUSTED_PROXIES, degraded: def.degraded, readinessGraceMs: config.READINESS_GRACE_MS });
  await def.routes?.(app, ctx);
  finishHttpApp(app, log);

  const server = createServer({ requestTimeout: 120_000, headersTimeout: 20_000, keepAliveTimeout: 5_000 }, app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.PORT, config.HOST, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.PORT;
  const url = `http://${config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST}:${port}`;

  await def.start?.(ctx);

  const shutdown = installGracefulShutdown({
    server,
    log,
    timeoutMs: config.SHUTDOWN_TIMEOUT_MS,
    delayMs: config.SHUTDOWN_DELAY_MS,
    onBegin: () => {
      shuttingDown = true;
    },
    onDrain: () => {
      abort.abort();
    },
    stopWork: async () => def.stop?.(ctx),
    closeConnections: async () => {
      await Promise.all(deps.map((d) => d.close()));
    },
  });
  // The address line is what supervisors wait for (PORT=0 picks any port), so it is written even
  // when LOG_LEVEL hides info lines.
  const announce = log.isLevelEnabled('info') ? log.info.bind(log) : log.warn.bind(log);
  announce({ url, dependencies: deps.map((d) => d.name) }, `${def.name} listening`);
  return { server, url, shutdown };
}

/** Connects, then applies what must exist on that server; a failure in either closes the connection and tries again until the deadline. */
async function retrying<T extends Dependency>(what: string, timeoutMs: number, log: Logger, connect: () => Promise<T>, prepare?: (dep: T) => Promise<void>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (let n = 1; ; n++) {
    try {
      const dep = await connect();
      try {
        await prepare?.(dep);
      } catch (err) {
        await dep.close().catch(() => undefined);
        throw err;
      }
      return dep;
    } catch (err) {
      // A refusal that waiting cannot change (more replicas than a lone server can hold) ends at once.
      if (err instanceof StreamReplicasError || Date.now() >= deadline) throw err;
      log.warn({ dependency: what, attempt: n, err: (err as Error).message }, 'not reachable yet; retrying');
      await new Promise((r) => setTimeout(r, Math.min(250 * n, 2_000)));
    }
  }
}

/** The streams, consumers and buckets a service creates at start: its NATS_ROLES entry, or all of them for a name the table does not know. */
export function natsOwned(service: string): { streams: StreamDef[]; consumers: ConsumerDef[]; buckets: KvBucketDef[] } {
  const role = (NATS_ROLES as Partial<Record<string, (typeof NATS_ROLES)[NatsUser]>>)[service];
  if (!role) return { streams: [...STREAMS], consumers: [...CONSUMERS], buckets: [...KV_BUCKETS] };
  return {
    streams: STREAMS.filter((s) => role.streams.includes(s.name)),
    consumers: CONSUMERS.filter((c) => role.streams.includes(c.stream)),
    buckets: KV_BUCKETS.filter((b) => role.buckets.includes(b.bucket)),
  };
}
