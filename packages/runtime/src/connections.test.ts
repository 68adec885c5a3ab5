import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_COLLECTIONS, COLLECTIONS, CONSUMERS, KV_BUCKETS, RETENTION_DAYS, STREAMS } from '@dv/contracts';
import { Kvm } from '@nats-io/kv';
import { isolatedMongo, stackEnv } from '../../../test/helpers.ts';
import { createLogger } from './logger.ts';
import { ensureCollections, type MongoDependency } from './mongo.ts';
import { connectNats, ensureKvBuckets, ensureStreams, natsManager, type NatsDependency } from './nats.ts';
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
});
