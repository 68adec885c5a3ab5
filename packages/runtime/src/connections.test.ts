import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_COLLECTIONS, COLLECTIONS, CONSUMERS, KV_BUCKETS, RETENTION_DAYS, STREAMS } from '@dv/contracts';
import { Kvm } from '@nats-io/kv';
import { z } from 'zod';
import { isolatedMongo } from './testing.ts';
import { stackEnv, until } from '@dv/test-kit';
import { loadConfig, serviceSchema } from './config.ts';
import { createLogger } from './logger.ts';
import { ensureCollections, type MongoDependency } from './mongo.ts';
import { StreamReplicasError, connectNats, ensureKvBuckets, ensureStreams, natsManager, replicasFor, type NatsDependency } from './nats.ts';
import { connectRedis } from './redis.ts';

const log = createLogger('test', 'silent');
let mongo: MongoDependency;
let nats: NatsDependency;

beforeAll(async () => {
  mongo = await isolatedMongo('conn');
  nats = await connectNats(stackEnv().NATS_URL as string, 'conn-test', log);
});

afterAll(async () => {
  await mongo.db.dropDatabase();
  await mongo.close();
  await nats.close();
});

describe('declared streams, consumers and buckets', () => {
  it('are created, and applying them again changes nothing and fails on nothing', async () => {
    const jsm = await natsManager(nats.nc);
    await ensureStreams(jsm, STREAMS, CONSUMERS);
    await ensureStreams(jsm, STREAMS, CONSUMERS);
    await ensureKvBuckets(nats.nc, KV_BUCKETS);
    await ensureKvBuckets(nats.nc, KV_BUCKETS);
    for (const def of STREAMS) {
      const info = await jsm.streams.info(def.name);
      expect(info.config.subjects).toEqual(def.subjects);
      expect(info.config.retention).toBe(def.retention);
    }
    for (const def of CONSUMERS) {
      const info = await jsm.consumers.info(def.stream, def.durable);
      expect(info.config.filter_subject).toBe(def.filterSubject);
      expect(info.config.ack_policy).toBe('explicit');
    }
    const kv = await new Kvm(nats.nc).open('LOAD');
    await kv.put('probe', '1');
    expect((await kv.get('probe'))?.string()).toBe('1');
  });

  it('updates a stream whose declared config changed', async () => {
    const jsm = await natsManager(nats.nc);
    const def = { name: 'TESTUPD', subjects: ['testupd.>'], retention: 'limits' as const, maxAgeMs: 60_000, replicas: 1, duplicateWindowMs: 10_000 };
    await ensureStreams(jsm, [def], []);
    await ensureStreams(jsm, [{ ...def, maxAgeMs: 120_000 }], []);
    expect((await jsm.streams.info('TESTUPD')).config.max_age).toBe(120_000 * 1_000_000);
    await jsm.streams.delete('TESTUPD');
  });
});

describe('stream replicas (NATS_STREAM_REPLICAS)', () => {
  const def = { name: 'TESTREPL', subjects: ['testrepl.>'], retention: 'limits' as const, maxAgeMs: 60_000, replicas: 1, duplicateWindowMs: 10_000 };

  it('come from configuration: 1 unless set, 1 to 5', () => {
    const schema = serviceSchema(0);
    expect(loadConfig('t', z.object(schema), {}).NATS_STREAM_REPLICAS).toBe(1);
    expect(loadConfig('t', z.object(schema), { NATS_STREAM_REPLICAS: '3' }).NATS_STREAM_REPLICAS).toBe(3);
    expect(() => loadConfig('t', z.object(schema), { NATS_STREAM_REPLICAS: '0' })).toThrow(/NATS_STREAM_REPLICAS/);
  });

  it('3 on a single server: a new stream or bucket is refused with a message naming the setting', async () => {
    const jsm = await natsManager(nats.nc);
    const refusal = ensureStreams(jsm, [def], [], { replicas: 3 });
    await expect(refusal).rejects.toBeInstanceOf(StreamReplicasError);
    await expect(refusal).rejects.toThrow(/stream TESTREPL: NATS_STREAM_REPLICAS=3 refused by the NATS server .*set NATS_STREAM_REPLICAS=1/);
    expect(await jsm.streams.info('TESTREPL').then(() => true, () => false)).toBe(false);
    await expect(ensureKvBuckets(nats.nc, [{ bucket: 'TESTREPLKV', ttlMs: 60_000, history: 1 }], { replicas: 3 })).rejects.toThrow(/stream KV_TESTREPLKV: NATS_STREAM_REPLICAS=3/);
  });

  it('3 on a single server: raising an existing R1 stream or bucket is refused the same way, and it stays R1', async () => {
    const jsm = await natsManager(nats.nc);
    await ensureStreams(jsm, [def], [], { replicas: 1 });
    await ensureKvBuckets(nats.nc, [{ bucket: 'TESTREPLKV', ttlMs: 60_000, history: 1 }], { replicas: 1 });
    await expect(ensureStreams(jsm, [def], [], { replicas: 3 })).rejects.toBeInstanceOf(StreamReplicasError);
    await expect(ensureKvBuckets(nats.nc, [{ bucket: 'TESTREPLKV', ttlMs: 60_000, history: 1 }], { replicas: 3 })).rejects.toBeInstanceOf(StreamReplicasError);
    expect((await jsm.streams.info('TESTREPL')).config.num_replicas).toBe(1);
    expect((await jsm.streams.info('KV_TESTREPLKV')).config.num_replicas).toBe(1);
    // Configured 1 again: applies cleanly.
    await ensureStreams(jsm, [def], [], { replicas: 1 });
    await jsm.streams.delete('TESTREPL');
    await jsm.streams.delete('KV_TESTREPLKV');
  });

  it('are raised on an existing stream, never lowered (a service without the setting keeps R3)', () => {
    const warnings: unknown[] = [];
    const log = { warn: (o: unknown) => warnings.push(o) } as unknown as Parameters<typeof replicasFor>[3];
    expect(replicasFor('VERIFY', 3, 1, log)).toBe(3);
    expect(replicasFor('VERIFY', 1, 3, log)).toBe(3);
    expect(replicasFor('VERIFY', 3, 3, log)).toBe(3);
    expect(warnings).toEqual([{ stream: 'VERIFY', replicas: 3, configured: 1 }, { stream: 'VERIFY', from: 1, to: 3 }]);
  });
});

describe('declared collections and indexes', () => {
  it('are applied idempotently, with TTL indexes for retained data', async () => {
    await ensureCollections(mongo.db, ALL_COLLECTIONS);
    await ensureCollections(mongo.db, ALL_COLLECTIONS);
    const names = (await mongo.db.listCollections().toArray()).map((c) => c.name);
    for (const def of ALL_COLLECTIONS) expect(names).toContain(def.name);
    const jobIndexes = await mongo.db.collection(COLLECTIONS.jobs.name).indexes();
    expect(jobIndexes.find((ix) => ix.name === 'ttl_expires_at')?.expireAfterSeconds).toBe(0);
    const keyIndexes = await mongo.db.collection(COLLECTIONS.apiKeys.name).indexes();
    expect(keyIndexes.find((ix) => ix.name === 'prefix')?.unique).toBe(true);
    expect(RETENTION_DAYS).toBe(30);
  });

  it('drops indexes an earlier version declared and leaves the data', async () => {
    const col = mongo.db.collection('upgrade_test');
    await col.createIndex({ account_id: 1, email: 1 }, { name: 'account_email', unique: true });
    await col.insertOne({ _id: 'acc:a@example.com' as never, account_id: 'acc', email: 'a@example.com' });
    const def = { name: 'upgrade_test', indexes: [{ key: { expires_at: 1 as const }, name: 'ttl_expires_at', expireAfterSeconds: 0 }], dropped: ['account_email'] };
    await ensureCollections(mongo.db, [def]);
    await ensureCollections(mongo.db, [def]); // already gone: no error
    expect((await col.indexes()).map((ix) => ix.name).sort()).toEqual(['_id_', 'ttl_expires_at']);
    // The unique (account, email) rule no longer holds; the `_id` key carries it now.
    await col.insertOne({ _id: 'other' as never, account_id: 'acc', email: 'a@example.com' });
    expect(await col.countDocuments({})).toBe(2);
    await col.drop();
  });
});

describe('redis connection', () => {
  it('reports ready and closes cleanly', async () => {
    const redis = await connectRedis(stackEnv().REDIS_URL as string, log);
    expect(await redis.isReady()).toBe(true);
    await redis.close();
    expect(await redis.isReady()).toBe(false);
  });

  it('opens again when the connection ends without close(), and stays closed after close()', async () => {
    const redis = await connectRedis(stackEnv().REDIS_URL as string, log);
    // What ioredis's Sentinel failover detector does: the connection is ended as if by hand.
    const ended = once(redis.redis, 'end');
    redis.redis.disconnect();
    await ended;
    await until(() => redis.isReady(), 10_000, 'the connection opened again');
    await redis.redis.set('reopened', 'yes');
    expect(await redis.redis.get('reopened')).toBe('yes');
    await redis.close();
    await new Promise((r) => setTimeout(r, 1_500));
    expect(redis.redis.status).toBe('end');
  });
});
