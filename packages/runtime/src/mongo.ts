import { MongoClient, type ChangeStream, type Db } from 'mongodb';
import type { CollectionDef } from '@dv/contracts';
import { within, type Dependency } from './dependency.ts';

export interface MongoDependency extends Dependency {
  readonly client: MongoClient;
  readonly db: Db;
}

/** The driver reconnects on its own; readiness is a bounded ping so a dead server shows within a second. */
export async function connectMongo(url: string, dbName: string): Promise<MongoDependency> {
  const client = new MongoClient(url, { serverSelectionTimeoutMS: 5_000, connectTimeoutMS: 3_000, heartbeatFrequencyMS: 1_000, appName: dbName });
  await client.connect();
  const db = client.db(dbName);
  return {
    name: 'mongodb',
    client,
    db,
    isReady: async () => within(db.command({ ping: 1 }, { timeoutMS: 900 }).then((r) => r.ok === 1), 1_000, false),
    close: async () => within(client.close(), 3_000, undefined),
  };
}

/**
 * Creates every declared collection and index; existing ones are left as they are, and indexes a
 * definition lists as dropped are removed where they remain (idempotent).
 */
export async function ensureCollections(db: Db, defs: readonly CollectionDef[]): Promise<void> {
  const existing = new Set((await db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name));
  for (const def of defs) {
    if (!existing.has(def.name)) await db.createCollection(def.name).catch((err: { code?: number }) => {
      if (err.code !== 48) throw err; // 48: NamespaceExists, another replica created it first
    });
    for (const name of def.dropped ?? []) {
      await db.collection(def.name).dropIndex(name).catch((err: { code?: number }) => {
        if (err.code !== 27) throw err; // 27: IndexNotFound, already gone
      });
    }
    if (def.indexes.length === 0) continue;
    await db.collection(def.name).createIndexes(
      def.indexes.map((ix) => ({
        key: ix.key,
        name: ix.name,
        ...(ix.unique ? { unique: true } : {}),
        ...(ix.expireAfterSeconds !== undefined ? { expireAfterSeconds: ix.expireAfterSeconds } : {}),
        ...(ix.partialFilterExpression ? { partialFilterExpression: ix.partialFilterExpression } : {}),
      })),
    );
  }
}

/** One collection of a `watchCollections` feed; `operations` keeps only those event types (all when absent). */
export interface WatchedCollection {
  name: string;
  operations?: readonly string[];
}

/**
 * One change stream over several collections of `db` (a database-level stream filtered by
 * collection name), for caches that must hear of changes at once. MongoDB reads every oplog entry
 * once per open change stream, whatever its collection, so each stream taxes every write of the
 * platform: with the gateway's three collection streams a 25,000-item insert took MongoDB
 * 1.1-1.5 s against 0.5-0.7 s with none and 0.7 with one like this (docs/data-model.md).
 */
export function watchCollections(db: Db, collections: readonly WatchedCollection[]): ChangeStream {
  const match = collections.map((c) => (c.operations ? { 'ns.coll': c.name, operationType: { $in: [...c.operations] } } : { 'ns.coll': c.name }));
  return db.watch([{ $match: match.length === 1 ? match[0] : { $or: match } }], {});
}
