import type { Db, MongoServerError } from 'mongodb';
import { COLLECTIONS, newId } from '@dv/contracts';
import type { Account } from './model.ts';
import { AccountError, createAccount, findAccountByEmail, getAccount } from './store.ts';

// People and their places in accounts. A person is an email address that signs in to the web pages
// (by emailed link); an account is who pays, whose keys call the API and whose lists run. A person
// belongs to an account as its owner or a member, and may belong to several. API keys stay the
// account's machine credential: a person's session never is one.

export const ROLES = ['owner', 'member'] as const;
export type Role = (typeof ROLES)[number];

export const ACTIONS = ['run_lists', 'check_addresses', 'view_account', 'manage_keys', 'manage_members', 'manage_webhook_secret'] as const;
export type Action = (typeof ACTIONS)[number];

/** What each role may do on the pages: a member runs lists and checks; keys, members and the webhook secret are the owner's. */
export const ROLE_PERMISSIONS: Readonly<Record<Role, readonly Action[]>> = {
  owner: ACTIONS,
  member: ['run_lists', 'check_addresses', 'view_account'],
};

export function can(role: Role, action: Action): boolean {
  return ROLE_PERMISSIONS[role].includes(action);
}

/** Credits a new Free-plan account starts with: enough to try the console on a small list. */
export const FREE_PLAN_SIGNUP_CREDITS = 100;
/** People in one account, owners and members together. */
export const MAX_MEMBERS_PER_ACCOUNT = 25;

export interface Person {
  _id: string;
  /** Lowercased; unique. */
  email: string;
  created_at: Date;
  last_signed_in_at: Date | null;
}

export interface Membership {
  _id: string;
  account_id: string;
  person_id: string;
  role: Role;
  created_at: Date;
  /** The person who added this one; null for the account's first owner. */
  added_by: string | null;
  /** Touched on every owner when an owner is removed, so two removals at once conflict (removeMember). */
  owners_checked_at?: Date;
}

const people = (db: Db) => db.collection<Person>(COLLECTIONS.people.name);
const memberships = (db: Db) => db.collection<Membership>(COLLECTIONS.memberships.name);

const EMAIL = /^[^\s@<>"'`]{1,64}@[^\s@<>"'`]+\.[^\s@<>"'`]+$/;

/** The address as stored (trimmed, lowercased), or null when it is not one. */
export function normalizeEmail(raw: string): string | null {
  const email = raw.trim().toLowerCase();
  return email.length <= 254 && EMAIL.test(email) ? email : null;
}

function validEmail(raw: string): string {
  const email = normalizeEmail(raw);
  if (!email) throw new AccountError('invalid', `"${raw.slice(0, 100)}" is not an email address`);
  return email;
}

const isDuplicate = (err: unknown) => (err as MongoServerError)?.code === 11000;

/** The person with this address, made on first use; two first uses at once make one. */
export async function findOrCreatePerson(db: Db, rawEmail: string): Promise<Person> {
  const email = validEmail(rawEmail);
  const fresh: Person = { _id: newId('person'), email, created_at: new Date(), last_signed_in_at: null };
  try {
    const found = await people(db).findOneAndUpdate({ email }, { $setOnInsert: fresh }, { upsert: true, returnDocument: 'after' });
    return found!;
  } catch (err) {
    // Two upserts of a new address race on the unique index: the loser reads the winner's.
    if (!isDuplicate(err)) throw err;
    return (await people(db).findOne({ email }))!;
  }
}

export async function findPersonByEmail(db: Db, rawEmail: string): Promise<Person | null> {
  const email = normalizeEmail(rawEmail);
  return email ? people(db).findOne({ email }) : null;
}

export async function noteSignIn(db: Db, personId: string, at = new Date()): Promise<void> {
  await people(db).updateOne({ _id: personId }, { $set: { last_signed_in_at: at } });
}

async function ensureMembership(db: Db, accountId: string, personId: string, role: Role, addedBy: string | null): Promise<{ membership: Membership; added: boolean }> {
  const fresh: Membership = { _id: newId('membership'), account_id: accountId, person_id: personId, role, created_at: new Date(), added_by: addedBy };
  try {
    const r = await memberships(db).findOneAndUpdate({ account_id: accountId, person_id: personId }, { $setOnInsert: fresh }, { upsert: true, returnDocument: 'after', includeResultMetadata: true });
    return { membership: r.value!, added: r.lastErrorObject?.updatedExisting === false };
  } catch (err) {
    if (!isDuplicate(err)) throw err;
    return { membership: (await memberships(db).findOne({ account_id: accountId, person_id: personId }))!, added: false };
  }
}

export interface SignUp {
  person: Person;
  account: Account;
  membership: Membership;
  /** False when the address already owned an account: signing up again is signing in. */
  created: boolean;
}

/**
 * A person and the account they own. A new address gets a Free-plan account (the console works;
 * the API refuses Free) with FREE_PLAN_SIGNUP_CREDITS. An address that is already an account's own
 * (made by the admin CLI) becomes that account's owner; one that already owns an account gets it.
 */
export async function signUp(db: Db, rawEmail: string, name?: string): Promise<SignUp> {
  const person = await findOrCreatePerson(db, rawEmail);
  const owned = await memberships(db).findOne({ person_id: person._id, role: 'owner' }, { sort: { created_at: 1 } });
  if (owned) return { person, account: await getAccount(db, owned.account_id), membership: owned, created: false };
  let account = await findAccountByEmail(db, person.email);
  let created = false;
  if (!account) {
    try {
      account = await createAccount(db, { name: name?.trim() || person.email, email: person.email, plan: 'free', credits: FREE_PLAN_SIGNUP_CREDITS });
      created = true;
    } catch (err) {
      // A second sign-up of the same new address at the same moment: the first made the account.
      if (!(err instanceof AccountError && err.code === 'conflict')) throw err;
      account = (await findAccountByEmail(db, person.email))!;
    }
  }
  const { membership } = await ensureMembership(db, account._id, person._id, 'owner', null);
  return { person, account, membership, created };
}

export interface AccountMembership {
  membership: Membership;
  account: Account;
}

/** The accounts a person belongs to, oldest membership first. */
export async function membershipsOf(db: Db, personId: string): Promise<AccountMembership[]> {
  return (await membershipsOfMany(db, [personId])).get(personId) ?? [];
}

/** The same for several people in two queries (the console reads every request's viewer through it, grouped). */
export async function membershipsOfMany(db: Db, personIds: readonly string[]): Promise<Map<string, AccountMembership[]>> {
  const all = await memberships(db).find({ person_id: { $in: [...new Set(personIds)] } }).sort({ created_at: 1 }).toArray();
  const accounts = await db.collection<Account>(COLLECTIONS.accounts.name).find({ _id: { $in: [...new Set(all.map((m) => m.account_id))] } }).toArray();
  const byId = new Map(accounts.map((a) => [a._id, a]));
  const out = new Map<string, AccountMembership[]>(personIds.map((id) => [id, []]));
  for (const m of all) {
    const account = byId.get(m.account_id);
    if (account) out.get(m.person_id)?.push({ membership: m, account });
  }
  return out;
}

/** The person's role in the account, or null when they do not belong to it. */
export async function roleIn(db: Db, personId: string, accountId: string): Promise<Role | null> {
  return (await memberships(db).findOne({ person_id: personId, account_id: accountId }))?.role ?? null;
}

export interface Member {
  person: Person;
  membership: Membership;
}

export async function listMembers(db: Db, accountId: string): Promise<Member[]> {
  const list = await memberships(db).find({ account_id: accountId }).sort({ created_at: 1 }).toArray();
  const found = await people(db).find({ _id: { $in: list.map((m) => m.person_id) } }).toArray();
  const byId = new Map(found.map((p) => [p._id, p]));
  return list.flatMap((m) => (byId.has(m.person_id) ? [{ person: byId.get(m.person_id)!, membership: m }] : []));
}

/** `counters` id every addition to the account writes first, so two additions at once conflict. */
export const membersCounterId = (accountId: string) => `members:${accountId}`;

/**
 * Adds the address to the account (a person is made for it when new); adding someone twice changes
 * nothing. The limit check and the insert are one transaction that first writes the account's
 * members counter: two additions at once conflict there, one is retried after the other commits
 * and counts its member, so however many race, the account never holds more than the limit.
 */
export async function addMember(db: Db, accountId: string, rawEmail: string, role: Role, addedBy: string): Promise<Member & { added: boolean }> {
  if (!ROLES.includes(role)) throw new AccountError('invalid', `role must be one of ${ROLES.join(', ')}`);
  await getAccount(db, accountId);
  const person = await findOrCreatePerson(db, rawEmail);
  const session = db.client.startSession();
  try {
    return await session.withTransaction(async () => {
      await db.collection<{ _id: string; touched_at: Date }>(COLLECTIONS.counters.name).updateOne({ _id: membersCounterId(accountId) }, { $set: { touched_at: new Date() } }, { upsert: true, session });
      const existing = await memberships(db).findOne({ account_id: accountId, person_id: person._id }, { session });
      if (existing) return { person, membership: existing, added: false };
      if ((await memberships(db).countDocuments({ account_id: accountId }, { session })) >= MAX_MEMBERS_PER_ACCOUNT) {
        throw new AccountError('limit', `an account has at most ${MAX_MEMBERS_PER_ACCOUNT} people; remove someone first`);
      }
      const membership: Membership = { _id: newId('membership'), account_id: accountId, person_id: person._id, role, created_at: new Date(), added_by: addedBy };
      await memberships(db).insertOne(membership, { session });
      return { person, membership, added: true };
    });
  } finally {
    await session.endSession();
  }
}

/**
 * Removes a person from the account; the last owner stays (an account always has one). The check
 * and the removal are one transaction, so two owners removing each other at once leave one.
 */
export async function removeMember(db: Db, accountId: string, personId: string): Promise<void> {
  const session = db.client.startSession();
  try {
    await session.withTransaction(async () => {
      const target = await memberships(db).findOne({ account_id: accountId, person_id: personId }, { session });
      if (!target) throw new AccountError('not_found', 'that person is not in this account');
      const owners = await memberships(db).find({ account_id: accountId, role: 'owner' }, { session }).toArray();
      if (target.role === 'owner' && owners.length <= 1) {
        throw new AccountError('conflict', 'an account keeps at least one owner: make someone else owner first');
      }
      await memberships(db).deleteOne({ _id: target._id }, { session });
      // Written by every removal of an owner, so two concurrent ones conflict and one is retried.
      if (target.role === 'owner') await memberships(db).updateMany({ account_id: accountId, role: 'owner' }, { $set: { owners_checked_at: new Date() } }, { session });
    });
  } finally {
    await session.endSession();
  }
}

/**
 * Makes a person of the account an owner or a member; the last owner stays an owner. Like
 * removeMember, a demotion writes every owner's membership in the same transaction, so two owners
 * demoting each other at once conflict and one is refused.
 */
export async function setMemberRole(db: Db, accountId: string, personId: string, role: Role): Promise<Membership> {
  if (!ROLES.includes(role)) throw new AccountError('invalid', `role must be one of ${ROLES.join(', ')}`);
  const session = db.client.startSession();
  try {
    return await session.withTransaction(async () => {
      const target = await memberships(db).findOne({ account_id: accountId, person_id: personId }, { session });
      if (!target) throw new AccountError('not_found', 'that person is not in this account');
      if (target.role === role) return target;
      if (target.role === 'owner') {
        const owners = await memberships(db).countDocuments({ account_id: accountId, role: 'owner' }, { session });
        if (owners <= 1) throw new AccountError('conflict', 'an account keeps at least one owner: make someone else owner first');
        await memberships(db).updateMany({ account_id: accountId, role: 'owner' }, { $set: { owners_checked_at: new Date() } }, { session });
      }
      await memberships(db).updateOne({ _id: target._id }, { $set: { role } }, { session });
      return { ...target, role };
    });
  } finally {
    await session.endSession();
  }
}
