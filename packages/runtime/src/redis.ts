import { Redis } from 'ioredis';
import { within, type Dependency } from './dependency.ts';
import type { Logger } from './logger.ts';

export interface RedisDependency extends Dependency {
  readonly redis: Redis;
}

/** REDIS_SENTINELS and REDIS_SENTINEL_NAME: the primary is found through the Sentinels. */
export interface RedisSentinelOptions {
  sentinels: readonly string[];
  name: string;
}

/** `host:port` (or `[v6]:port`, or a bare host on 26379) as ioredis takes it. */
export function sentinelAddress(item: string): { host: string; port: number } {
  const m = /^\[([^\]]+)\](?::(\d+))?$/.exec(item) ?? /^([^:]+)(?::(\d+))?$/.exec(item);
  return { host: m?.[1] ?? item, port: Number(m?.[2] ?? 26379) };
}

/** How long a connection that ended without `close()` waits before it is opened again. */
const REOPEN_AFTER_END_MS = 500;

/**
 * ioredis reconnects forever with a capped backoff; commands issued while down fail fast instead of
 * queueing. With Sentinels, every (re)connect asks them for the current primary, and the client
 * also listens for their failover announcements (failoverDetector), so it moves to a new primary
 * as soon as one is elected.
 *
 * ioredis also has paths that end a connection for good without being asked: its failover detector
 * closes the connection as if by hand, and when that lands while the client is already reconnecting
 * to the dead primary, the client stops in `end` and every command fails with "Connection is
 * closed." from then on. Only `close()` ends this dependency; any other end opens it again.
 */
export async function connectRedis(url: string, log: Logger, sentinel?: RedisSentinelOptions): Promise<RedisDependency> {
  const viaSentinels = sentinel && sentinel.sentinels.length > 0 ? { sentinels: sentinel.sentinels.map(sentinelAddress), name: sentinel.name, failoverDetector: true, sentinelRetryStrategy: (attempt: number) => Math.min(100 * attempt, 1_000) } : {};
  const redis = new Redis(url, {
    ...viaSentinels,
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    connectTimeout: 2_000,
    retryStrategy: (attempt) => Math.min(100 * attempt, 1_000),
  });
  let wasReady = false;
  redis.on('ready', () => {
    if (wasReady) log.info({ dependency: 'redis' }, 'redis reconnected');
    wasReady = true;
  });
  redis.on('error', (err) => log.debug({ dependency: 'redis', err: err.message }, 'redis error'));
  let closing = false;
  redis.on('end', () => {
    if (closing) return;
    log.warn({ dependency: 'redis' }, 'redis connection ended without close(); opening it again');
    setTimeout(() => {
      if (!closing && redis.status === 'end') redis.connect().catch(() => undefined);
    }, REOPEN_AFTER_END_MS).unref();
  });
  await redis.connect();
  return {
    name: 'redis',
    redis,
    isReady: async () => redis.status === 'ready' && (await within(redis.ping().then((r) => r === 'PONG'), 1_000, false)),
    close: async () => {
      closing = true;
      await within(redis.quit().then(() => undefined), 2_000, undefined);
      redis.disconnect();
    },
  };
}
