import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Redis } from 'ioredis';
import type { Db } from 'mongodb';
import { connectRedis, createHttpApp, createLogger, createRegistry, finishHttpApp, loadConfig, type MongoDependency, type RedisDependency } from '@dv/runtime';
import { isolatedMongo } from '@dv/runtime/testing';
import { deleteByPrefix, stackEnv } from '@dv/test-kit';
import { mountLookup } from '../app.ts';
import { lookupConfigSchema } from '../config.ts';
import { createLookupContext, type LookupContext } from '../context.ts';
import type { Engine } from '../engine.ts';
import type { Mailer } from '../keys/mailer.ts';

// The lookup service in-process for tests: the real app, config schema, Redis and MongoDB of the
// test stack, with a Redis key prefix and a database of its own so test files never collide.

export interface LookupHarness {
  url: string;
  ctx: LookupContext;
  redis: Redis;
  db: Db;
  close(): Promise<void>;
}

export async function startLookup(opts: { engine: Engine; env?: Record<string, string>; mailer?: Mailer; label?: string }): Promise<LookupHarness> {
  const stack = stackEnv();
  const prefix = `t_lookup_${randomBytes(4).toString('hex')}:`;
  const config = loadConfig('lookup', lookupConfigSchema, { REDIS_URL: stack.REDIS_URL, MONGODB_URL: stack.MONGODB_URL, REDIS_KEY_PREFIX: prefix, LOG_LEVEL: 'silent', ...opts.env });
  const log = createLogger('lookup', 'silent');
  const registry = createRegistry('lookup');
  let redisDep: RedisDependency | undefined;
  let mongo: MongoDependency | undefined;
  let server: Server | undefined;
  try {
    redisDep = await connectRedis(config.REDIS_URL, log);
    mongo = await isolatedMongo(opts.label ?? 'lookup');
    const ctx = createLookupContext({ config, engine: opts.engine, redis: redisDep.redis, db: mongo.db, log, registry, mailer: opts.mailer });
    const app = createHttpApp({ registry, log, dependencies: () => [], isShuttingDown: () => false, trustedProxies: config.TRUSTED_PROXIES });
    await mountLookup(app, ctx, mongo.db);
    finishHttpApp(app, log);
    const srv = createServer(app);
    server = srv;
    await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
    const { port } = srv.address() as AddressInfo;
    const r = redisDep;
    const m = mongo;
    return {
      url: `http://127.0.0.1:${port}`,
      ctx,
      redis: r.redis,
      db: m.db,
      close: async () => {
        srv.closeAllConnections();
        await new Promise<void>((resolve) => srv.close(() => resolve()));
        await deleteByPrefix(r.redis, prefix);
        await r.close();
        await m.db.dropDatabase().catch(() => undefined);
        await m.close();
      },
    };
  } catch (err) {
    server?.close();
    await redisDep?.close();
    await mongo?.close();
    throw err;
  }
}
