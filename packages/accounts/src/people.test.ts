import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_COLLECTIONS } from '@dv/contracts';
import { ensureCollections, type MongoDependency } from '@dv/runtime';
import { isolatedMongo } from '@dv/runtime/testing';
import { FREE_PLAN_SIGNUP_CREDITS, MAX_MEMBERS_PER_ACCOUNT, addMember, can, findOrCreatePerson, listMembers, membershipsOf, normalizeEmail, removeMember, roleIn, setMemberRole, signUp } from './people.ts';
import { addCredits, createAccount, getAccount } from './store.ts';
import { grantMonthlyAllowance } from './allowance.ts';
import { FREE_PLAN_MONTHLY_CREDITS } from '@dv/contracts';

let mongo: MongoDependency;

beforeAll(async () => {
  mongo = await isolatedMongo('people');
  await ensureCollections(mongo.db, ALL_COLLECTIONS);
});

afterAll(async () => {
  await mongo.db.dropDatabase();
  await mongo.close();
});

describe('people', () => {
  it('are one per address, however it is written and however many first uses race', async () => {
    expect(normalizeEmail('  Ann@Example.TEST ')).toBe('ann@example.test');
    for (const bad of ['', 'ann', 'ann@', '@example.test', 'a b@example.test', '<ann>@example.test', `${'a'.repeat(250)}@example.test`]) expect(normalizeEmail(bad)).toBeNull();
    const all = await Promise.all(Array.from({ length: 10 }, (_, i) => findOrCreatePerson(mongo.db, i % 2 ? 'Race@Example.test' : 'race@example.test')));
    expect(new Set(all.map((p) => p._id)).size).toBe(1);
    expect(all[0]!._id).toMatch(/^per_/);
    await expect(findOrCreatePerson(mongo.db, 'not an address')).rejects.toMatchObject({ code: 'invalid' });
  });
});

describe('sign-up', () => {
  it('gives a new address a Free-plan account it owns, with the sign-up credits; again, the same account', async () => {
    const first = await signUp(mongo.db, 'New@Example.test', 'New Co');
    expect(first).toMatchObject({ created: true, account: { plan: 'free', credits: FREE_PLAN_SIGNUP_CREDITS, email: 'new@example.test', name: 'New Co' }, membership: { role: 'owner', added_by: null } });
    const again = await signUp(mongo.db, 'new@example.test');
    expect(again.created).toBe(false);
    expect(again.account._id).toBe(first.account._id);
    expect(await membershipsOf(mongo.db, first.person._id)).toHaveLength(1);
  });

  it('makes the person with an existing account\'s own address its owner, leaving its plan and credits', async () => {
    const made = await createAccount(mongo.db, { name: 'Made by admin', email: 'ops@admin.test', plan: 'business', credits: 5000 });
    const s = await signUp(mongo.db, 'OPS@admin.test');
    expect(s).toMatchObject({ created: false, account: { _id: made._id, plan: 'business', credits: 5000 }, membership: { role: 'owner' } });
  });

  it('two sign-ups of one new address at once make one account and one owner', async () => {
    const both = await Promise.all([signUp(mongo.db, 'twice@example.test'), signUp(mongo.db, 'twice@example.test')]);
    expect(both[0].account._id).toBe(both[1].account._id);
    expect(await listMembers(mongo.db, both[0].account._id)).toHaveLength(1);
  });
});

describe('members', () => {
  it('owners manage keys, members and the webhook secret; members run lists and checks', () => {
    expect(['manage_keys', 'manage_members', 'manage_webhook_secret', 'run_lists'].map((a) => can('owner', a as never))).toEqual([true, true, true, true]);
    expect(['manage_keys', 'manage_members', 'manage_webhook_secret', 'run_lists', 'check_addresses', 'view_account'].map((a) => can('member', a as never))).toEqual([false, false, false, true, true, true]);
  });

  it('are added once, belong to several accounts, and an account keeps its last owner', async () => {
    const a = await signUp(mongo.db, 'owner-a@example.test');
    const b = await signUp(mongo.db, 'owner-b@example.test');
    const added = await addMember(mongo.db, a.account._id, 'Shared@Example.test', 'member', a.person._id);
    expect(added).toMatchObject({ added: true, membership: { role: 'member', added_by: a.person._id } });
    expect((await addMember(mongo.db, a.account._id, 'shared@example.test', 'owner', a.person._id)).added).toBe(false);
    await addMember(mongo.db, b.account._id, 'shared@example.test', 'owner', b.person._id);
    expect((await membershipsOf(mongo.db, added.person._id)).map((m) => [m.account._id, m.membership.role])).toEqual([[a.account._id, 'member'], [b.account._id, 'owner']]);
    expect(await roleIn(mongo.db, added.person._id, a.account._id)).toBe('member');
    expect(await roleIn(mongo.db, a.person._id, b.account._id)).toBeNull();

    await expect(removeMember(mongo.db, a.account._id, a.person._id)).rejects.toMatchObject({ code: 'conflict' });
    await removeMember(mongo.db, a.account._id, added.person._id);
    expect(await roleIn(mongo.db, added.person._id, a.account._id)).toBeNull();
    await expect(removeMember(mongo.db, a.account._id, added.person._id)).rejects.toMatchObject({ code: 'not_found' });
  });

  it('two owners removing each other at once leave one owner', async () => {
    const s = await signUp(mongo.db, 'duo-1@example.test');
    const other = await addMember(mongo.db, s.account._id, 'duo-2@example.test', 'owner', s.person._id);
    const results = await Promise.allSettled([removeMember(mongo.db, s.account._id, s.person._id), removeMember(mongo.db, s.account._id, other.person._id)]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect((await listMembers(mongo.db, s.account._id)).map((m) => m.membership.role)).toEqual(['owner']);
  });

  it('an account holds at most the member limit', async () => {
    const s = await signUp(mongo.db, 'big@example.test');
    for (let i = 1; i < MAX_MEMBERS_PER_ACCOUNT; i++) await addMember(mongo.db, s.account._id, `m${i}@big.test`, 'member', s.person._id);
    await expect(addMember(mongo.db, s.account._id, 'one-more@big.test', 'member', s.person._id)).rejects.toMatchObject({ code: 'limit' });
    await expect(addMember(mongo.db, s.account._id, 'x@big.test', 'admin' as never, s.person._id)).rejects.toMatchObject({ code: 'invalid' });
  });

  it('changes roles, never demoting the last owner, even when two owners demote each other at once', async () => {
    const s = await signUp(mongo.db, 'roles-1@example.test');
    const other = await addMember(mongo.db, s.account._id, 'roles-2@example.test', 'member', s.person._id);
    await expect(setMemberRole(mongo.db, s.account._id, s.person._id, 'member')).rejects.toMatchObject({ code: 'conflict' });
    expect(await setMemberRole(mongo.db, s.account._id, other.person._id, 'owner')).toMatchObject({ role: 'owner' });
    const results = await Promise.allSettled([setMemberRole(mongo.db, s.account._id, s.person._id, 'member'), setMemberRole(mongo.db, s.account._id, other.person._id, 'member')]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect((await listMembers(mongo.db, s.account._id)).filter((m) => m.membership.role === 'owner')).toHaveLength(1);
    await expect(setMemberRole(mongo.db, s.account._id, 'per_nobody', 'owner')).rejects.toMatchObject({ code: 'not_found' });
  });

  it('holds the member limit under concurrency: 30 additions at once to an account near it end with exactly the limit', async () => {
    const s = await signUp(mongo.db, 'crowd@example.test');
    for (let i = 1; i < MAX_MEMBERS_PER_ACCOUNT - 5; i++) await addMember(mongo.db, s.account._id, `early${i}@crowd.test`, 'member', s.person._id);
    const results = await Promise.allSettled(Array.from({ length: 30 }, (_, i) => addMember(mongo.db, s.account._id, `late${i}@crowd.test`, 'member', s.person._id)));
    const refused = results.filter((r) => r.status === 'rejected');
    expect(results.filter((r) => r.status === 'fulfilled' && r.value.added)).toHaveLength(5);
    expect(refused).toHaveLength(25);
    for (const r of refused) expect((r as PromiseRejectedResult).reason).toMatchObject({ code: 'limit' });
    expect(await listMembers(mongo.db, s.account._id)).toHaveLength(MAX_MEMBERS_PER_ACCOUNT);
    // Adding someone already in the account at the limit changes nothing and is no error.
    expect((await addMember(mongo.db, s.account._id, 'early1@crowd.test', 'owner', s.person._id)).added).toBe(false);
  }, 60_000);
});

describe('the Free plan\'s monthly allowance', () => {
  it('tops a Free balance up to the allowance once a month, whatever the races, and never a paid plan', async () => {
    const { account } = await signUp(mongo.db, 'allowance@example.test');
    const december = new Date('2026-12-03T10:00:00Z');
    // The sign-up month: the balance is already at the allowance; the month is recorded all the same.
    expect(await grantMonthlyAllowance(mongo.db, account, december)).toBe(0);
    await addCredits(mongo.db, account._id, -70, 'spend-1');
    expect(await grantMonthlyAllowance(mongo.db, account, december)).toBe(0);
    const january = new Date('2027-01-02T00:00:01Z');
    const raced = await Promise.all(Array.from({ length: 4 }, () => grantMonthlyAllowance(mongo.db, account, january)));
    expect(raced.reduce((a, b) => a + b, 0)).toBe(70);
    expect((await getAccount(mongo.db, account._id)).credits).toBe(FREE_PLAN_MONTHLY_CREDITS);
    const paid = await createAccount(mongo.db, { name: 'Paid', email: 'paid-allowance@example.test', plan: 'business', credits: 3 });
    expect(await grantMonthlyAllowance(mongo.db, paid, january)).toBe(0);
    expect((await getAccount(mongo.db, paid._id)).credits).toBe(3);
  });
});
