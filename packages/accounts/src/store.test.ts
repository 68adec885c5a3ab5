import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_COLLECTIONS, COLLECTIONS, MAX_ACTIVE_KEYS_PER_ACCOUNT } from '@dv/contracts';
import { ensureCollections, type MongoDependency } from '@dv/runtime';
import { isolatedMongo } from '@dv/runtime/testing';
import { hashKey, parseKey } from './keys.ts';
import { AccountError, addCredits, authenticateKey, createAccount, createApiKey, getAccount, listApiKeys, revokeApiKey } from './store.ts';

let mongo: MongoDependency;

beforeAll(async () => {
  mongo = await isolatedMongo('accounts');
  await ensureCollections(mongo.db, ALL_COLLECTIONS);
});

afterAll(async () => {
  await mongo.db.dropDatabase();
  await mongo.close();
});

describe('accounts and API keys', () => {
  it('creates an account with its plan limits, credits and a webhook secret', async () => {
    const account = await createAccount(mongo.db, { name: 'Acme', email: 'Ops@Acme.test', plan: 'business', credits: 500 });
    expect(account._id).toMatch(/^acc_/);
    expect(account.email).toBe('ops@acme.test');
    expect(account.credits).toBe(500);
    expect(account.limits.requestsPerMinute).toBe(120);
    expect(account.webhook_secret).toMatch(/^whsec_/);
    await expect(createAccount(mongo.db, { name: 'Again', email: 'ops@acme.test', plan: 'pro' })).rejects.toMatchObject({ code: 'conflict' });
  });

  it('returns the full key once and stores only its hash', async () => {
    const account = await createAccount(mongo.db, { name: 'Keys', email: 'keys@acme.test', plan: 'pro' });
    const live = await createApiKey(mongo.db, account._id, 'ci', 'live');
    const sandbox = await createApiKey(mongo.db, account._id, 'tests', 'sandbox');
    expect(live.key).toMatch(/^dv_live_[a-z2-9]{10}_[A-Za-z2-9]{32}$/);
    expect(sandbox.key).toMatch(/^dv_test_/);
    expect(parseKey(live.key)?.prefix).toBe(live.record.prefix);

    const stored = await mongo.db.collection(COLLECTIONS.apiKeys.name).findOne({ _id: live.record._id as never });
    expect(stored?.hash).toBe(hashKey(live.key));
    const raw = JSON.stringify(stored);
    expect(raw).not.toContain(live.key);
    expect(raw).not.toContain(live.key.slice(live.record.prefix.length + 1));

    const listed = await listApiKeys(mongo.db, account._id);
    expect(listed).toHaveLength(2);
    expect(JSON.stringify(listed)).not.toContain(live.key);
  });

  it('authenticates a key in constant time and refuses look-alikes', async () => {
    const account = await createAccount(mongo.db, { name: 'Auth', email: 'auth@acme.test', plan: 'enterprise' });
    const { key } = await createApiKey(mongo.db, account._id, 'k', 'live');
    expect((await authenticateKey(mongo.db, key))?.account._id).toBe(account._id);
    const lastChar = key.at(-1) === 'a' ? 'b' : 'a';
    expect(await authenticateKey(mongo.db, `${key.slice(0, -1)}${lastChar}`)).toBeNull();
    expect(await authenticateKey(mongo.db, key.replace('dv_live_', 'dv_test_'))).toBeNull();
    expect(await authenticateKey(mongo.db, '')).toBeNull();
    expect(await authenticateKey(mongo.db, `${key}\r\nX-Injected: 1`)).toBeNull();
  });

  it('revokes at once, by id or prefix, idempotently', async () => {
    const account = await createAccount(mongo.db, { name: 'Revoke', email: 'revoke@acme.test', plan: 'pro' });
    const a = await createApiKey(mongo.db, account._id, 'a', 'live');
    const b = await createApiKey(mongo.db, account._id, 'b', 'sandbox');
    const revoked = await revokeApiKey(mongo.db, a.record._id);
    expect(revoked.revoked_at).toBeInstanceOf(Date);
    expect(await authenticateKey(mongo.db, a.key)).toBeNull();
    expect((await revokeApiKey(mongo.db, a.record._id)).revoked_at).toEqual(revoked.revoked_at);
    await revokeApiKey(mongo.db, b.record.prefix);
    expect(await authenticateKey(mongo.db, b.key)).toBeNull();
    await expect(revokeApiKey(mongo.db, 'key_nope')).rejects.toBeInstanceOf(AccountError);
  });

  it('caps active keys per account', async () => {
    const account = await createAccount(mongo.db, { name: 'Cap', email: 'cap@acme.test', plan: 'pro' });
    const made = [];
    for (let i = 0; i < MAX_ACTIVE_KEYS_PER_ACCOUNT; i++) made.push(await createApiKey(mongo.db, account._id, `k${i}`, 'live'));
    await expect(createApiKey(mongo.db, account._id, 'one-too-many', 'live')).rejects.toMatchObject({ code: 'limit' });
    await revokeApiKey(mongo.db, made[0]!.record._id);
    await expect(createApiKey(mongo.db, account._id, 'after-revoke', 'live')).resolves.toBeTruthy();
  });

  it('holds the cap when creations race: 15 at once leave exactly 10 active keys', async () => {
    const account = await createAccount(mongo.db, { name: 'Race', email: 'race@acme.test', plan: 'pro' });
    const tries = await Promise.allSettled(Array.from({ length: 15 }, (_, i) => createApiKey(mongo.db, account._id, `race${i}`, i % 2 ? 'live' : 'sandbox')));
    const made = tries.filter((t) => t.status === 'fulfilled');
    const refused = tries.flatMap((t) => (t.status === 'rejected' ? [t.reason as AccountError] : []));
    expect(made).toHaveLength(MAX_ACTIVE_KEYS_PER_ACCOUNT);
    expect(refused.map((e) => e.code)).toEqual(Array(15 - MAX_ACTIVE_KEYS_PER_ACCOUNT).fill('limit'));
    expect((await listApiKeys(mongo.db, account._id)).filter((k) => k.revoked_at === null)).toHaveLength(MAX_ACTIVE_KEYS_PER_ACCOUNT);
    await expect(createApiKey(mongo.db, 'acc_missing', 'k', 'live')).rejects.toMatchObject({ code: 'not_found' });
  });

  it('moves credits exactly once per movement id, never below zero', async () => {
    const account = await createAccount(mongo.db, { name: 'Credits', email: 'credits@acme.test', plan: 'pro', credits: 10 });
    await addCredits(mongo.db, account._id, 5, 'grant:test:1');
    await addCredits(mongo.db, account._id, 5, 'grant:test:1');
    expect((await getAccount(mongo.db, account._id)).credits).toBe(15);
    await Promise.all(Array.from({ length: 10 }, () => addCredits(mongo.db, account._id, 7, 'grant:test:concurrent').catch(() => undefined)));
    expect((await getAccount(mongo.db, account._id)).credits).toBe(22);
    await expect(addCredits(mongo.db, account._id, -100, 'take:test:1')).rejects.toMatchObject({ code: 'invalid' });
    expect((await getAccount(mongo.db, account._id)).credits).toBe(22);
    expect(await mongo.db.collection(COLLECTIONS.creditLedger.name).countDocuments({ account_id: account._id })).toBe(3);
  });
});
