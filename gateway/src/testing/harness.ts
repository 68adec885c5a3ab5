import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import type { Db } from 'mongodb';
import type { NatsConnection } from '@nats-io/transport-node';
import { COLLECTIONS, CONSUMERS, KV_BUCKETS, STREAMS, type PlanName } from '@dv/contracts';
import { createAccount, createApiKey, type Account } from '@dv/accounts';
import { connectNats, connectRedis, createHttpApp, createLogger, createRegistry, ensureKvBuckets, ensureStreams, loadConfig, natsManager, type MongoDependency, type NatsDependency, type RedisDependency } from '@dv/runtime';
import { isolatedMongo } from '@dv/runtime/testing';
import { deleteByPrefix, stackEnv } from '@dv/test-kit';
import { applySchema } from '@dv/stack';
import { REPO_ROOT, startStack, type Stack } from '@dv/stack';
import { mountGateway } from '../app.ts';
import { downloadSecret, gatewayConfigSchema } from '../config.ts';
import { createGatewayContext, startContext, stopContext, type GatewayContext } from '../context.ts';
import { startFakeScheduler, type FakeScheduler } from './fake-scheduler.ts';
import type { ConsoleContext } from '../web/context.ts';

// The gateway in-process for tests: the real app on the run's Redis and MongoDB (a database and a
// Redis prefix of its own) and a private nats-server, so no other test file consumes our VERIFY
// messages. `env` is what a child gateway process needs to join the same setup.

/** The harness's download-signing key (tests sign links of their own with it). */
export const TEST_DOWNLOAD_SECRET = 'test-download-secret-test-download-secret';

export interface TestAccount {
  account: Account;
  live: string;
  sandbox: string;
}

export interface GatewayHarness {
  url: string;
  ctx: GatewayContext;
  db: Db;
  redis: Redis;
  nc: NatsConnection;
  env: Record<string, string>;
  scheduler?: FakeScheduler;
  /** The console's context (sessions, links): console tests sign people in through it. */
  console: ConsoleContext;
  /** The private nats-server (tests stop it to see the gateway degrade). */
  natsStack: Stack;
  account(opts?: { plan?: PlanName; credits?: number; status?: 'active' | 'inactive'; limits?: Partial<Account['limits']> }): Promise<TestAccount>;
  close(): Promise<void>;
}

/** `realBaseUrl`: PUBLIC_BASE_URL is the harness's own address (OAuth metadata and redirects must reach it). */
export async function startGatewayHarness(opts: { label: string; scheduler?: boolean; env?: Record<string, string>; realBaseUrl?: boolean }): Promise<GatewayHarness> {
  const run = stackEnv();
  const tag = `${opts.label}_${randomBytes(3).toString('hex')}`;
  const dataDir = join(REPO_ROOT, '.local', `gw-test-${tag}`);
  const stack: Stack = await startStack({ dataDir, servers: ['nats'] });
  const log = createLogger('gateway', 'silent');
  const registry = createRegistry('gateway');
  let nats: NatsDependency | undefined;
  let gatewayNats: NatsDependency | undefined;
  let redisDep: RedisDependency | undefined;
  let mongo: MongoDependency | undefined;
  let server: Server | undefined;
  try {
    nats = await connectNats(stack.env.NATS_URL!, 'gateway-test', log);
    await ensureStreams(await natsManager(nats.nc), STREAMS, CONSUMERS);
    await ensureKvBuckets(nats.nc, KV_BUCKETS);
    // The gateway itself runs as its bus user (NATS_ROLES), so every gateway test exercises its
    // permissions; `nats` above (the stack's all-permitted anonymous user) plays the other roles.
    gatewayNats = await connectNats(stack.env.NATS_URL!, 'gateway-test', log, { user: 'gateway', password: readFileSync(join(stack.env.NATS_USERS_DIR!, 'gateway'), 'utf8').trim() });
    redisDep = await connectRedis(run.REDIS_URL!, log);
    mongo = await isolatedMongo(`gw_${opts.label}`);
    await applySchema(mongo.db);
    // Listen before the app exists, so the address is known to the config.
    const srv = createServer();
    server = srv;
    await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
    const env: Record<string, string> = {
      ...(opts.realBaseUrl ? { PUBLIC_BASE_URL: url } : {}),
      NATS_URL: stack.env.NATS_URL!,
      // Child processes (scheduler, probe node, other replicas) connect as their own bus users.
      NATS_USERS_DIR: stack.env.NATS_USERS_DIR!,
      REDIS_URL: run.REDIS_URL!,
      MONGODB_URL: run.MONGODB_URL!,
      MONGODB_DB: mongo.db.databaseName,
      REDIS_KEY_PREFIX: `t_${tag}:`,
      LOG_LEVEL: 'warn',
      // One key for this gateway and any child process (another replica, the scheduler) joining it.
      DOWNLOAD_SIGNING_SECRET: TEST_DOWNLOAD_SECRET,
      ...opts.env,
    };
    const config = loadConfig('gateway', gatewayConfigSchema, env);
    const secret = downloadSecret(config);
    if ('error' in secret) throw new Error(secret.error);
    const abort = new AbortController();
    const ctx = createGatewayContext({ config, downloadSecret: secret.secret, log, registry, db: mongo.db, redis: redisDep.redis, nc: gatewayNats.nc, shutdownSignal: abort.signal });
    await startContext(ctx);
    const app = createHttpApp({ registry, log, dependencies: () => [], isShuttingDown: () => false });
    const consoleCtx = mountGateway(app, ctx);
    srv.on('request', app);
    const scheduler = opts.scheduler ? await startFakeScheduler(nats.nc, mongo.db) : undefined;
    const n = nats;
    const gn = gatewayNats;
    const r = redisDep;
    const m = mongo;
    let seq = 0;
    return {
      url,
      ctx,
      db: m.db,
      redis: r.redis,
      nc: n.nc,
      env,
      scheduler,
      console: consoleCtx,
      natsStack: stack,
      account: async (a = {}) => {
        const account = await createAccount(m.db, { name: `t${seq}`, email: `owner${seq++}_${tag}@example.com`, plan: a.plan ?? 'business', credits: a.credits ?? 1_000, status: a.status });
        if (a.limits) await m.db.collection<Account>(COLLECTIONS.accounts.name).updateOne({ _id: account._id }, { $set: Object.fromEntries(Object.entries(a.limits).map(([k, v]) => [`limits.${k}`, v])) });
        const live = await createApiKey(m.db, account._id, 'live', 'live');
        const sandbox = await createApiKey(m.db, account._id, 'sandbox', 'sandbox');
        return { account: (await m.db.collection<Account>(COLLECTIONS.accounts.name).findOne({ _id: account._id }))!, live: live.key, sandbox: sandbox.key };
      },
      close: async () => {
        abort.abort();
        await scheduler?.stop();
        srv.closeAllConnections();
        await new Promise<void>((resolve) => srv.close(() => resolve()));
        await stopContext(ctx);
        await deleteByPrefix(r.redis, env.REDIS_KEY_PREFIX!);
        await r.close();
        await gn.close();
        await n.close();
        await m.db.dropDatabase().catch(() => undefined);
        await m.close();
        await stack.stop();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    server?.close();
    await gatewayNats?.close();
    await nats?.close();
    await redisDep?.close();
    await mongo?.close();
    await stack.stop();
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
}

/** fetch with a bearer key and JSON body (shared with the other test harnesses). */
export { call } from '@dv/test-kit';
