import type { Db } from 'mongodb';
import { ALL_COLLECTIONS } from '@dv/contracts';
import { createAccount, createApiKey, findAccountByEmail, listApiKeys, revokeApiKey } from '@dv/accounts';
import { ensureCollections } from '@dv/runtime';

/**
 * Creates every collection and index once, before any service starts. Services apply the same
 * schema at their own start (idempotently), but five processes creating the same collections at
 * the same moment crash the Windows build of mongod that the offline route runs under wine (a
 * write-conflict path that a native mongod survives), so the launcher goes first.
 */
export async function applySchema(db: Db): Promise<void> {
  await ensureCollections(db, ALL_COLLECTIONS);
}

export const DEMO_ACCOUNT = { name: 'Demo', email: 'demo@example.com', plan: 'business', credits: 10_000 } as const;

export interface DemoKeys {
  accountId: string;
  live: string;
  sandbox: string;
}

/**
 * The demo account (Business plan, 10,000 credits) with one live and one sandbox key. Full keys are
 * shown once only, so every start revokes the previous demo keys and issues fresh ones.
 */
export async function ensureDemoAccount(db: Db): Promise<DemoKeys> {
  const account = (await findAccountByEmail(db, DEMO_ACCOUNT.email)) ?? (await createAccount(db, { ...DEMO_ACCOUNT }));
  for (const key of await listApiKeys(db, account._id)) {
    if (key.revoked_at === null && key.name.startsWith('demo-')) await revokeApiKey(db, key._id);
  }
  const live = await createApiKey(db, account._id, 'demo-live', 'live');
  const sandbox = await createApiKey(db, account._id, 'demo-sandbox', 'sandbox');
  return { accountId: account._id, live: live.key, sandbox: sandbox.key };
}
