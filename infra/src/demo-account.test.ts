import { afterAll, beforeAll, expect, it } from 'vitest';
import { findAccountByEmail, lookupPortfolioKey } from '@dv/accounts';
import { COLLECTIONS } from '@dv/contracts';
import type { MongoDependency } from '@dv/runtime';
import { isolatedMongo } from '@dv/runtime/testing';
import { applySchema } from '@dv/stack';
import { DEMO_OTHER_PORTFOLIO_DOMAINS, DEMO_PORTFOLIO_NO_API, DEMO_PORTFOLIO_OTHER, ensureDemoAccount, ensureDemoPortfolioAccounts, ensureDemoPortfolioKey } from './demo-account.ts';

// The demo's portfolio accounts on a real MongoDB: the keys .local/demo.json names, on the plans it
// promises, fresh at every start (the previous ones revoked), the second account's own domains.

let mongo: MongoDependency;

beforeAll(async () => {
  mongo = await isolatedMongo('demoacct');
  await applySchema(mongo.db);
});
afterAll(async () => {
  await mongo?.db.dropDatabase();
  await mongo?.close();
});

it('three portfolio accounts: two Enterprise Max with keys, one without API access; a restart replaces the keys', async () => {
  const db = mongo.db;
  const demo = await ensureDemoAccount(db);
  const first = { main: await ensureDemoPortfolioKey(db, demo.accountId), ...(await ensureDemoPortfolioAccounts(db, { world: true, intervalS: 86_400 })) };
  const main = await lookupPortfolioKey(db, first.main);
  const other = await lookupPortfolioKey(db, first.other);
  const noApi = await lookupPortfolioKey(db, first.noApi);
  if (!main.ok || !other.ok || !noApi.ok) throw new Error('a demo key does not resolve');
  expect(main.account.portfolio_plan).toBe('enterprise_max');
  expect(other.account.portfolio_plan).toBe('enterprise_max');
  expect(other.account._id).not.toBe(main.account._id);
  expect(other.account.email).toBe(DEMO_PORTFOLIO_OTHER.email);
  expect(noApi.account.portfolio_plan).toBe('business');
  expect(noApi.account.email).toBe(DEMO_PORTFOLIO_NO_API.email);
  const otherDomains = await db.collection(COLLECTIONS.portfolioDomains.name).find({ account_id: other.account._id }).toArray();
  expect(otherDomains.map((d) => d.domain).sort()).toEqual([...DEMO_OTHER_PORTFOLIO_DOMAINS].sort());

  const second = await ensureDemoPortfolioAccounts(db, { world: true, intervalS: 86_400 });
  expect(second.other).not.toBe(first.other);
  expect((await lookupPortfolioKey(db, first.other)).ok).toBe(false);
  expect((await lookupPortfolioKey(db, second.other)).ok).toBe(true);
  expect((await findAccountByEmail(db, DEMO_PORTFOLIO_OTHER.email))?._id).toBe(other.account._id);
});
