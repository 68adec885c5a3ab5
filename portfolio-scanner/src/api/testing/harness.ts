import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { Redis } from 'ioredis';
import { expect } from 'vitest';
import { AuthMarks, createAccount, createPortfolioKey, setPortfolioPlan } from '@dv/accounts';
import { ALL_COLLECTIONS, type PortfolioPlanName } from '@dv/contracts';
import { connectRedis, createHttpApp, createLogger, createRegistry, ensureCollections, finishHttpApp, type MongoDependency, type RedisDependency } from '@dv/runtime';
import { isolatedMongo } from '@dv/runtime/testing';
import { stackEnv } from '@dv/test-kit';
import { connectorOAuth, mountPortfolioConnector } from '../../mcp/index.ts';
import { mountPortfolioApi } from '../app.ts';
import type { ApiContext } from '../context.ts';
import { portfolioKeyAuthenticator } from '../key-auth.ts';
import { ApiLimits } from '../limits.ts';

// The portfolio API in-process on the run's real MongoDB and Redis (an own database and Redis
// prefix per file), mounted exactly as main.ts mounts it. Priority scan requests are recorded
// rather than published: the shared test stream belongs to the worker tests.

export const INTERVAL_S = 86_400;
/** The harness's export-link key (tests sign links with it, or forge them without it). */
export const EXPORT_SECRET = 'portfolio-test-export-secret-portfolio-test';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read envelopes of every shape
type Json = any;

export interface Harness {
  url: string;
  db: MongoDependency['db'];
  redis: Redis;
  redisPrefix: string;
  ctx: ApiContext;
  scanRequests: string[][];
  account: (plan: PortfolioPlanName | null, opts?: { status?: 'active' | 'inactive' }) => Promise<{ accountId: string; key: string }>;
  call: (method: string, path: string, opts?: { key?: string; body?: unknown; raw?: string; headers?: Record<string, string> }) => Promise<{ status: number; headers: Headers; body: Json }>;
  close: () => Promise<void>;
}

/**
 * `trustedProxies`: TRUSTED_PROXIES of the app (the tests' loopback client then plays the proxy);
 * `connector`: the MCP connector too; `replicaOf`: another replica of that harness's API (its
 * database and Redis prefix; closing it leaves them alone); `authAttemptsPerIpPerMinute`: the
 * per-address lookup limit (the service's default otherwise; 0 off).
 */
export async function startHarness(label: string, opts: { trustedProxies?: string[]; connector?: boolean; replicaOf?: Harness; authAttemptsPerIpPerMinute?: number } = {}): Promise<Harness> {
  const replicaOf = opts.replicaOf;
  const mongo = replicaOf ? { db: replicaOf.db, close: async () => undefined } : await isolatedMongo(label);
  await ensureCollections(mongo.db, ALL_COLLECTIONS);
  const log = createLogger('portfolio-api-test', 'silent');
  const redisDep: RedisDependency = await connectRedis(stackEnv().REDIS_URL as string, log);
  const redisPrefix = replicaOf?.redisPrefix ?? `t:${label}:${randomBytes(4).toString('hex')}:`;
  // As main.ts builds it: keys remembered while the change stream runs, revocation marks checked.
  const marks = new AuthMarks(redisDep.redis);
  const auth = portfolioKeyAuthenticator({ db: mongo.db, redis: redisDep.redis, log, marks, redisPrefix, attemptsPerIpPerMinute: opts.authAttemptsPerIpPerMinute });
  await auth.start();
  const scanRequests: string[][] = [];
  const app = createHttpApp({ registry: createRegistry('portfolio-api-test'), log, dependencies: () => [], isShuttingDown: () => false, trustedProxies: opts.trustedProxies });
  // Listening first: the connector's OAuth metadata and redirects name the harness's own address.
  const server: Server = createServer(app);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const addr = server.address();
  const url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  const ctx: ApiContext = {
    db: mongo.db,
    redis: redisDep.redis,
    log,
    auth,
    marks,
    limits: new ApiLimits(redisDep.redis, redisPrefix),
    intervalS: INTERVAL_S,
    requestScan: async (domains) => {
      scanRequests.push([...domains]);
    },
    lastUsedThrottleMs: 0,
    exports: { secret: EXPORT_SECRET, linkTtlS: 3600 },
    publicBaseUrl: url,
  };
  // The MCP connector and its OAuth server, mounted before the API as main.ts mounts them.
  if (opts.connector) mountPortfolioConnector(app, ctx, connectorOAuth({ db: mongo.db, redis: redisDep.redis, log, baseUrl: url, sealSecret: EXPORT_SECRET, redisPrefix }));
  mountPortfolioApi(app, ctx);
  finishHttpApp(app, log);
  let n = 0;
  return {
    url,
    db: mongo.db,
    redis: redisDep.redis,
    redisPrefix,
    ctx,
    scanRequests,
    account: async (plan, opts = {}) => {
      n++;
      const acc = await createAccount(mongo.db, { name: `p${n}`, email: `p${n}-${randomBytes(3).toString('hex')}@example.com`, plan: 'business', status: opts.status ?? 'active' });
      await setPortfolioPlan(mongo.db, acc._id, plan);
      const { key } = await createPortfolioKey(mongo.db, acc._id, 'test');
      return { accountId: acc._id, key };
    },
    call: async (method, path, opts = {}) => {
      const headers: Record<string, string> = { ...opts.headers };
      if (opts.key) headers.authorization = `Bearer ${opts.key}`;
      let body: string | undefined = opts.raw;
      if (opts.body !== undefined) {
        body = JSON.stringify(opts.body);
        headers['content-type'] ??= 'application/json';
      } else if (opts.raw !== undefined) headers['content-type'] ??= 'application/json';
      const res = await fetch(path.startsWith('http') ? path : `${url}${path}`, { method, headers, body });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // not JSON: the test will say so
      }
      return { status: res.status, headers: res.headers, body: parsed };
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await auth.stop();
      if (!replicaOf) await mongo.db.dropDatabase();
      await mongo.close();
      await redisDep.close();
    },
  };
}

/** The error envelope with one error of `code`. */
export function errorEnvelope(code: string) {
  return { status: 'error', data: null, meta: {}, errors: [{ code, detail: expect.any(String) }] };
}
