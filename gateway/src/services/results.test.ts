import { afterAll, beforeAll, expect, it } from 'vitest';
import { COLLECTIONS, latestResultId, type LatestResultDoc } from '@dv/contracts';
import type { MongoDependency } from '@dv/runtime';
import { sandboxResult } from '@dv/verdict';
import { isolatedMongo } from '@dv/runtime/testing';
import { applySchema } from '@dv/stack';
import { ResultStore } from './results.ts';

// GET /v1/lookup's grouped reads: many concurrent lookups, several accounts, one query per batch,
// and every caller gets its own account's document (never another account's, never the other
// key mode's), whatever the case of the address.

let mongo: MongoDependency;

beforeAll(async () => {
  mongo = await isolatedMongo('gw_results');
  await applySchema(mongo.db);
}, 60_000);

afterAll(async () => {
  await mongo?.db.dropDatabase().catch(() => undefined);
  await mongo?.close();
});

it('answers concurrent lookups of several accounts each with its own latest result', async () => {
  const now = new Date();
  const docs: LatestResultDoc[] = [];
  for (const account of ['acc_a', 'acc_b', 'acc_c']) {
    for (let i = 0; i < 20; i++) {
      const email = `u${i}@example.com`;
      docs.push({ _id: latestResultId(account, 'live', email), account_id: account, mode: 'live', email, result: sandboxResult(email, now), job_id: `job_${account}_${i}`, checked_at: now, expires_at: new Date(now.getTime() + 86_400_000) });
    }
  }
  await mongo.db.collection<LatestResultDoc>(COLLECTIONS.latestResults.name).insertMany(docs);
  const store = new ResultStore(mongo.db, { lookupBatchMax: 16, lookupInFlight: 1 });
  // acc_b's u0 also has a sandbox result: each mode reads its own.
  const sandboxDoc: LatestResultDoc = { ...docs[20]!, _id: latestResultId('acc_b', 'sandbox', 'u0@example.com'), mode: 'sandbox', job_id: 'job_acc_b_sandbox' };
  await mongo.db.collection<LatestResultDoc>(COLLECTIONS.latestResults.name).insertOne(sandboxDoc);
  const asks = [
    ...docs.map((d) => ({ accountId: d.account_id, mode: 'live' as const, email: d.email })),
    { accountId: 'acc_a', mode: 'live' as const, email: 'nobody@example.com' },
    { accountId: 'acc_z', mode: 'live' as const, email: 'u1@example.com' },
    { accountId: 'acc_a', mode: 'sandbox' as const, email: 'u1@example.com' },
    { accountId: 'acc_b', mode: 'sandbox' as const, email: 'U0@example.com' },
    { accountId: 'acc_c', mode: 'live' as const, email: 'U5@Example.COM' },
  ];
  const answers = await Promise.all(asks.map((a) => store.latest(a.accountId, a.mode, a.email)));
  answers.slice(0, docs.length).forEach((doc, i) => expect(doc?.job_id).toBe(docs[i]!.job_id));
  expect(answers.slice(docs.length).map((d) => d?.job_id ?? null)).toEqual([null, null, null, 'job_acc_b_sandbox', 'job_acc_c_5']);
}, 60_000);
