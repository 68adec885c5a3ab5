import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { natsUsersDir } from './nats-auth.ts';
import { killLeftovers } from './process.ts';
import { ExternalMongo, MongoServer, NatsServer, RedisServer, allocatePort, type ServerHandle, type ServerName, type ServerPlacement } from './servers.ts';

export interface StackOptions {
  /** Data and logs of this stack; each stack (npm start, a test run) uses its own folder. */
  dataDir: string;
  /** Downloaded binaries and the wine prefix, shared by every stack of this checkout. */
  cacheDir?: string;
  servers?: readonly ServerName[];
  /** Use this MongoDB instead of starting one (defaults to process.env.MONGODB_URL). */
  mongodbUrl?: string;
  log?: (msg: string) => void;
  /** Servers in their own process group (npm start): Ctrl-C reaches the launcher only. */
  detached?: boolean;
  /**
   * mongod's WiredTiger cache (GB). Default 0.25: tests start many stacks side by side on a small
   * box. A benchmark whose data outgrows it (a million-address list is ~2 GB of items, results
   * and cache entries) gives the store the cache a deployment would, or it measures eviction.
   */
  mongoCacheGb?: number;
  /** On a simulated host (../cluster): its address, `ip netns exec` prefix and the servers' standard ports. */
  placement?: ServerPlacement & { ports: Record<ServerName, number> };
}

export interface Stack {
  readonly servers: Partial<Record<ServerName, ServerHandle>>;
  /** NATS_URL, REDIS_URL and MONGODB_URL for the services. */
  readonly env: Record<string, string>;
  readonly dataDir: string;
  stop(): Promise<void>;
}

export const REPO_ROOT = resolve(import.meta.dirname, '../../..');
export const DEFAULT_CACHE_DIR = join(REPO_ROOT, '.local', 'cache');

/**
 * Starts nats-server (JetStream), redis-server and mongod (single-node replica set), each on a free
 * loopback port, in parallel. A failure part-way stops whatever had started.
 */
export async function startStack(opts: StackOptions): Promise<Stack> {
  const log = opts.log ?? (() => undefined);
  const wanted = opts.servers ?? ['nats', 'redis', 'mongodb'];
  const dataDir = resolve(opts.dataDir);
  mkdirSync(dataDir, { recursive: true });
  for (const leftover of killLeftovers(dataDir)) log(`ended a leftover server from an earlier run: ${leftover}`);

  const servers: Partial<Record<ServerName, ServerHandle>> = {};
  const mongodbUrl = opts.mongodbUrl ?? process.env.MONGODB_URL;
  const detached = opts.detached ?? false;
  const place = opts.placement;
  const port = async (name: ServerName) => place?.ports[name] ?? (await allocatePort());
  if (wanted.includes('nats')) servers.nats = new NatsServer(await port('nats'), dataDir, log, detached, place);
  if (wanted.includes('redis')) servers.redis = new RedisServer(await port('redis'), dataDir, log, detached, place);
  if (wanted.includes('mongodb')) {
    servers.mongodb = mongodbUrl && !place ? new ExternalMongo(mongodbUrl) : new MongoServer(await port('mongodb'), dataDir, opts.cacheDir ?? DEFAULT_CACHE_DIR, log, detached, place, opts.mongoCacheGb);
  }
  const handles = Object.values(servers);
  const started = await Promise.allSettled(handles.map((h) => h.start()));
  const failed = started.flatMap((r, i) => (r.status === 'rejected' ? [`${handles[i]?.name}: ${(r.reason as Error).message}`] : []));
  if (failed.length > 0) {
    await Promise.allSettled(handles.map((h) => h.stop()));
    throw new Error(`the local stack did not start (logs in ${join(dataDir, 'logs')}):\n  ${failed.join('\n  ')}`);
  }
  const env: Record<string, string> = {};
  if (servers.nats) env.NATS_URL = servers.nats.url;
  // Each service's password file is here; startServiceProcess connects it as its own bus user.
  if (servers.nats) env.NATS_USERS_DIR = natsUsersDir(dataDir);
  if (servers.redis) env.REDIS_URL = servers.redis.url;
  if (servers.mongodb) env.MONGODB_URL = servers.mongodb.url;
  let stopped = false;
  return {
    servers,
    env,
    dataDir,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await Promise.allSettled(handles.map((h) => h.stop()));
    },
  };
}
