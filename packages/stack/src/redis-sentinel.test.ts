import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis, createLogger, loadConfig, serviceSchema, type RedisDependency } from '@dv/runtime';
import { z } from 'zod';
import { until } from '@dv/test-kit';
import { startSentinelSet, type SentinelSet } from './redis-sentinel.ts';

// Redis failover with real redis-server processes (as the prod overlay runs them): a primary, a replica and three
// Sentinels. The primary is killed; the client the services use finds the promoted replica through
// the Sentinels and keeps working, with the data written before the failover.

let dir: string;
let set: SentinelSet;
let dep: RedisDependency | undefined;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dv-sentinel-'));
  set = await startSentinelSet(dir);
}, 60_000);

afterAll(async () => {
  await dep?.close();
  await set?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function primaryPort(): Promise<number> {
  const s = new Redis({ host: '127.0.0.1', port: Number(set.sentinels[0]!.split(':')[1]), lazyConnect: true, maxRetriesPerRequest: 0 });
  try {
    const [, port] = (await s.call('SENTINEL', 'get-master-addr-by-name', set.name)) as [string, string];
    return Number(port);
  } finally {
    s.disconnect();
  }
}

describe('Redis through Sentinels', () => {
  it('keeps working after the primary is killed, on the promoted replica, with what was written before', async () => {
    // The Sentinels must know the replica before a failover can promote it.
    await until(async () => {
      const s = new Redis({ host: '127.0.0.1', port: Number(set.sentinels[0]!.split(':')[1]), maxRetriesPerRequest: 0 });
      try {
        const replicas = (await s.call('SENTINEL', 'replicas', set.name)) as string[][];
        return replicas.some((r) => r.includes(String(set.ports.replica)) && r[r.indexOf('master-link-status') + 1] === 'ok');
      } finally {
        s.disconnect();
      }
    }, 30_000, 'sentinels see the replica in sync');
    expect(await primaryPort()).toBe(set.ports.primary);

    // The host in REDIS_URL is not used with Sentinels: only the primary they name is.
    dep = await connectRedis('redis://not-used.invalid:1', createLogger('sentinel-test', 'silent'), { sentinels: set.sentinels, name: set.name });
    await dep.redis.set('decided', 'greylisted');
    // Replicated before the primary dies (WAIT: one replica acknowledged).
    expect(await dep.redis.wait(1, 5_000)).toBe(1);

    await set.kill(set.ports.primary);
    let lastError = '';
    const after = await until(async () => {
      try {
        await dep!.redis.set('after-failover', 'ok');
        return await dep!.redis.get('decided');
      } catch (err) {
        lastError = (err as Error).message;
        return null;
      }
    }, 60_000, 'writes accepted again after the failover', 250).catch((err: Error) => {
      throw new Error(`${err.message}; last error: ${lastError}`);
    });
    expect(after).toBe('greylisted');
    // The Sentinel asked may learn of the promotion after the one the client followed (they pass
    // the new configuration on in their hello messages, every 2 s): it must name the replica soon.
    const promoted = await until(async () => ((await primaryPort()) === set.ports.replica ? set.ports.replica : null), 15_000, 'the Sentinels name the promoted replica', 250);
    expect(promoted).toBe(set.ports.replica);
    expect(await dep.isReady()).toBe(true);
  }, 120_000);
});

describe('REDIS_SENTINELS settings', () => {
  const schema = z.object(serviceSchema(1));
  it('takes the Sentinels with the primary name, and refuses one without the other', () => {
    const cfg = loadConfig('svc', schema, { REDIS_SENTINELS: '10.0.0.1:26379,redis-sentinel-1', REDIS_SENTINEL_NAME: 'dv' });
    expect([cfg.REDIS_SENTINELS, cfg.REDIS_SENTINEL_NAME]).toEqual([['10.0.0.1:26379', 'redis-sentinel-1'], 'dv']);
    expect(() => loadConfig('svc', schema, { REDIS_SENTINELS: '10.0.0.1:26379' })).toThrow(/REDIS_SENTINEL_NAME: required with REDIS_SENTINELS/);
    expect(() => loadConfig('svc', schema, { REDIS_SENTINEL_NAME: 'dv' })).toThrow(/REDIS_SENTINEL_NAME: set without REDIS_SENTINELS/);
    expect(() => loadConfig('svc', schema, { REDIS_SENTINELS: 'bad host!', REDIS_SENTINEL_NAME: 'dv' })).toThrow(/REDIS_SENTINELS/);
  });
});
