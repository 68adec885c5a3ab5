import { Redis } from 'ioredis';
import { within, type Dependency } from './dependency.ts';
import type { Logger } from './logger.ts';

export interface RedisDependency extends Dependency {
  readonly redis: Redis;
}

/** ioredis reconnects forever with a capped backoff; commands issued while down fail fast instead of queueing. */
export async function connectRedis(url: string, log: Logger): Promise<RedisDependency> {
  const redis = new Redis(url, {
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
  redis.on('end', () => log.debug({ dependency: 'redis' }, 'redis connection ended'));
  await redis.connect();
  return {
    name: 'redis',
    redis,
    isReady: async () => redis.status === 'ready' && (await within(redis.ping().then((r) => r === 'PONG'), 1_000, false)),
    close: async () => {
      await within(redis.quit().then(() => undefined), 2_000, undefined);
      redis.disconnect();
    },
  };
}
