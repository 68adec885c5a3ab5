import { afterAll, beforeAll, expect, it } from 'vitest';
import { COLLECTIONS, latestResultId, type LatestResultDoc } from '@dv/contracts';
import type { MongoDependency } from '@dv/runtime';
import { sandboxResult } from '@dv/verdict';
import { isolatedMongo } from '../../../test/helpers.ts';
import { applySchema } from '../../../infra/src/demo-account.ts';
import { ResultStore } from './results.ts';

// GET /v1/lookup's grouped reads: many concurrent lookups, several accounts, one query per batch,
// and every caller gets its own account's document (never another account's).

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
      docs.push({ _id: latestResultId(account, email), account_id: account, email, result: sandboxResult(email, now), job_id: `job_${account}_${i}`, checked_at: now, expires_at: new Date(now.getTime() + 86_400_000) });
    }
  }
  await mongo.db.collection<LatestResultDoc>(COLLECTIONS.latestResults.name).insertMany(docs);
  const store = new ResultStore(mongo.db, { lookupBatchMax: 16, lookupInFlight: 1 });
  const asks = [...docs.map((d) => ({ accountId: d.account_id, email: d.email })), { accountId: 'acc_a', email: 'nobody@example.com' }, { accountId: 'acc_z', email: 'u1@example.com' }];
  const answers = await Promise.all(asks.map((a) => store.latest(a.accountId, a.email)));
  answers.slice(0, docs.length).forEach((doc, i) => expect(doc?.job_id).toBe(docs[i]!.job_id));
  expect(answers.slice(docs.length)).toEqual([null, null]);
}, 60_000);
