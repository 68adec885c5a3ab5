import type { ClientSession, Db, MongoServerError } from 'mongodb';
import { COLLECTIONS, MAX_ACTIVE_KEYS_PER_ACCOUNT, PLANS, newId, type PlanName } from '@dv/contracts';
import { generateKey, generateWebhookSecret, keyMatches, parseKey, type KeyMode } from './keys.ts';
import type { Account, ApiKeyRecord, LedgerEntry } from './model.ts';
import type { AuthMarks } from './auth-marks.ts';

export class AccountError extends Error {
  readonly code: 'not_found' | 'conflict' | 'invalid' | 'limit';
  constructor(code: AccountError['code'], message: string) {
    super(message);
    this.name = 'AccountError';
    this.code = code;
  }
}

const accounts = (db: Db) => db.collection<Account>(COLLECTIONS.accounts.name);
const keys = (db: Db) => db.collection<ApiKeyRecord>(COLLECTIONS.apiKeys.name);
const ledger = (db: Db) => db.collection<LedgerEntry>(COLLECTIONS.creditLedger.name);

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export interface NewAccount {
  name: string;
  email: string;
  plan: PlanName;
  credits?: number;
  status?: Account['status'];
}

export async function createAccount(db: Db, input: NewAccount): Promise<Account> {
  if (!input.name.trim()) throw new AccountError('invalid', 'name must not be empty');
  if (!EMAIL.test(input.email)) throw new AccountError('invalid', `"${input.email}" is not an email address`);
  if (!(input.plan in PLANS)) throw new AccountError('invalid', `plan must be one of ${Object.keys(PLANS).join(', ')}`);
  const now = new Date();
  const account: Account = {
    _id: newId('account'),
    name: input.name.trim(),
    email: input.email.toLowerCase(),
    plan: input.plan,
    status: input.status ?? 'active',
    credits: 0,
    limits: { ...PLANS[input.plan].limits },
    webhook_secret: generateWebhookSecret(),
    created_at: now,
    updated_at: now,
  };
  try {
    await accounts(db).insertOne(account);
  } catch (err) {
    if ((err as MongoServerError).code === 11000) throw new AccountError('conflict', `an account with email ${account.email} already exists`);
    throw err;
  }
  if (input.credits && input.credits > 0) return addCredits(db, account._id, input.credits, `grant:${account._id}:initial`, 'initial credits');
  return account;
}

export async function getAccount(db: Db, accountId: string): Promise<Account> {
  const account = await accounts(db).findOne({ _id: accountId });
  if (!account) throw new AccountError('not_found', `no account ${accountId}`);
  return account;
}

export interface AccountSummary {
  account_id: string;
  name: string;
  email: string;
  plan: PlanName;
  status: Account['status'];
  credits: number;
  created_at: Date;
}

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Accounts for the admin CLI, newest first, without secrets. `query` matches the id exactly or a
 * case-insensitive part of the name or email (taken literally, not as a pattern).
 */
export async function listAccounts(db: Db, opts: { query?: string; limit?: number } = {}): Promise<AccountSummary[]> {
  const q = opts.query?.trim();
  const filter = q ? { $or: [{ _id: q }, { email: { $regex: escapeRegex(q.toLowerCase()) } }, { name: { $regex: escapeRegex(q), $options: 'i' } }] } : {};
  const rows = await accounts(db)
    .find(filter, { sort: { created_at: -1, _id: -1 }, limit: Math.min(Math.max(opts.limit ?? 50, 1), 1_000) })
    .toArray();
  return rows.map((a) => ({ account_id: a._id, name: a.name, email: a.email, plan: a.plan, status: a.status, credits: a.credits, created_at: a.created_at }));
}

export async function findAccountByEmail(db: Db, email: string): Promise<Account | null> {
  return accounts(db).findOne({ email: email.toLowerCase() });
}

export interface CreatedKey {
  /** The full key, returned this once only. */
  key: string;
  record: ApiKeyRecord;
}

/**
 * Creates a key unless the account already holds MAX_ACTIVE_KEYS_PER_ACCOUNT active ones. The count
 * and the insert are one transaction that first writes the account (its updated_at, which the key
 * caches ignore), so two creations at once conflict on that write and one is retried after the
 * other committed: it counts the other's key, and the limit holds however many race.
 */
export async function createApiKey(db: Db, accountId: string, name: string, mode: KeyMode): Promise<CreatedKey> {
  if (!name.trim() || name.length > 100) throw new AccountError('invalid', 'key name must be 1-100 characters');
  const generated = generateKey(mode);
  const record: ApiKeyRecord = {
    _id: newId('apiKey'),
    account_id: accountId,
    name: name.trim(),
    mode,
    prefix: generated.prefix,
    hash: generated.hash,
    created_at: new Date(),
    revoked_at: null,
    last_used_at: null,
  };
  const session = db.client.startSession();
  try {
    await session.withTransaction(async () => {
      const touched = await accounts(db).updateOne({ _id: accountId }, { $set: { updated_at: new Date() } }, { session });
      if (touched.matchedCount === 0) throw new AccountError('not_found', `no account ${accountId}`);
      const active = await keys(db).countDocuments({ account_id: accountId, revoked_at: null }, { session });
      if (active >= MAX_ACTIVE_KEYS_PER_ACCOUNT) throw new AccountError('limit', `an account may hold at most ${MAX_ACTIVE_KEYS_PER_ACCOUNT} active keys; revoke one first`);
      await keys(db).insertOne(record, { session });
    });
  } finally {
    await session.endSession();
  }
  return { key: generated.key, record };
}

export async function listApiKeys(db: Db, accountId: string): Promise<ApiKeyRecord[]> {
  return keys(db).find({ account_id: accountId }).sort({ created_at: -1 }).toArray();
}

/**
 * Revokes by key id or public prefix. Idempotent: revoking a revoked key keeps its first revocation
 * time. With `marks` (every caller that answers someone), the key stops working on every replica
 * before this returns (auth-marks.ts); without, when the APIs' change streams report it.
 */
export async function revokeApiKey(db: Db, idOrPrefix: string, accountId?: string, marks?: AuthMarks): Promise<ApiKeyRecord> {
  const filter = { $or: [{ _id: idOrPrefix }, { prefix: idOrPrefix }], ...(accountId ? { account_id: accountId } : {}) };
  const existing = await keys(db).findOne(filter);
  if (!existing) throw new AccountError('not_found', `no key ${idOrPrefix}`);
  // Marked even when already revoked: a retry after a mark that failed still reaches the replicas.
  const updated = existing.revoked_at ? existing : await keys(db).findOneAndUpdate({ _id: existing._id, revoked_at: null }, { $set: { revoked_at: new Date() } }, { returnDocument: 'after' });
  await marks?.mark([existing._id]);
  return updated ?? (await keys(db).findOne({ _id: existing._id })) ?? existing;
}

/** Activates or deactivates an account; with `marks`, its keys (of every API) follow on every replica at once. */
export async function setAccountStatus(db: Db, accountId: string, status: Account['status'], marks?: AuthMarks): Promise<Account> {
  if (status !== 'active' && status !== 'inactive') throw new AccountError('invalid', 'status must be active or inactive');
  return updateAccount(db, accountId, { status }, marks);
}

/** Moves an account to `plan` (its limits with it); with `marks`, a plan without API access is refused from the next call on. */
export async function setAccountPlan(db: Db, accountId: string, plan: PlanName, marks?: AuthMarks): Promise<Account> {
  if (!(plan in PLANS)) throw new AccountError('invalid', `plan must be one of ${Object.keys(PLANS).join(', ')}`);
  return updateAccount(db, accountId, { plan, limits: { ...PLANS[plan].limits } }, marks);
}

/** Sets fields that authentication depends on, then marks the account (auth-marks.ts). */
export async function updateAccount(db: Db, accountId: string, fields: Partial<Omit<Account, '_id'>>, marks?: AuthMarks): Promise<Account> {
  const updated = await accounts(db).findOneAndUpdate({ _id: accountId }, { $set: { ...fields, updated_at: new Date() } }, { returnDocument: 'after' });
  if (!updated) throw new AccountError('not_found', `no account ${accountId}`);
  await marks?.mark([accountId]);
  return updated;
}

export interface Authenticated {
  account: Account;
  key: ApiKeyRecord;
}

/**
 * Finds the key by its public prefix and compares hashes in constant time. Revoked keys and
 * malformed keys fail the same way as unknown ones (null), so callers answer one 401.
 */
export async function authenticateKey(db: Db, presented: string): Promise<Authenticated | null> {
  const r = await lookupKey(db, presented);
  return r.ok ? r.found : null;
}

/**
 * Why a presented key fails, for callers that shield the store (the gateway remembers unknown and
 * revoked prefixes briefly). Callers still answer one 401 whatever the reason.
 */
export type KeyLookup = { ok: true; found: Authenticated } | { ok: false; reason: 'malformed' | 'unknown_prefix' | 'revoked' | 'wrong_secret' | 'no_account'; prefix: string | null };

export async function lookupKey(db: Db, presented: string): Promise<KeyLookup> {
  const parsed = parseKey(presented);
  if (!parsed) return { ok: false, reason: 'malformed', prefix: null };
  const { prefix } = parsed;
  const key = await keys(db).findOne({ prefix });
  if (!key) return { ok: false, reason: 'unknown_prefix', prefix };
  if (key.revoked_at !== null) return { ok: false, reason: 'revoked', prefix };
  if (!keyMatches(presented, key.hash)) return { ok: false, reason: 'wrong_secret', prefix };
  const account = await accounts(db).findOne({ _id: key.account_id });
  if (!account) return { ok: false, reason: 'no_account', prefix };
  return { ok: true, found: { account, key } };
}

/**
 * The key with this id and its account, when the key is still active: how a credential derived
 * from a key (an OAuth token) is checked on every use, so revoking the key disconnects it at once.
 */
export async function activeKeyById(db: Db, keyId: string): Promise<Authenticated | null> {
  const key = await keys(db).findOne({ _id: keyId });
  if (!key || key.revoked_at !== null) return null;
  const account = await accounts(db).findOne({ _id: key.account_id });
  if (!account) return null;
  return { account, key };
}

/**
 * Gives `amount` credits back under the ledger id `movementId`, inside the caller's transaction, at
 * most once ever: the entry is upserted and the credits move only when it is new. Returns false
 * when that refund was made before (the caller then leaves its own counters alone). Job refunds
 * (cancel, deadline leftovers, items never stored) each have their own id (LEDGER_IDS).
 */
export async function refundOnce(db: Db, session: ClientSession, r: { movementId: string; accountId: string; amount: number; note: string; at: Date }): Promise<boolean> {
  const entry: Omit<LedgerEntry, '_id'> = { account_id: r.accountId, delta: r.amount, reason: 'refund', note: r.note, at: r.at };
  const recorded = await ledger(db).updateOne({ _id: r.movementId }, { $setOnInsert: entry }, { upsert: true, session });
  if (recorded.upsertedCount === 0) return false;
  await accounts(db).updateOne({ _id: r.accountId }, { $inc: { credits: r.amount }, $set: { updated_at: r.at } }, { session });
  return true;
}

/**
 * Adds (or, with a negative amount, takes) credits together with a ledger entry whose id is the
 * movement's idempotency id, in one transaction: a replayed movement changes nothing.
 */
export async function addCredits(db: Db, accountId: string, amount: number, movementId: string, note: string | null = null): Promise<Account> {
  if (!Number.isSafeInteger(amount) || amount === 0) throw new AccountError('invalid', 'amount must be a non-zero whole number');
  const session = db.client.startSession();
  try {
    await session.withTransaction(async () => {
      const entry: LedgerEntry = { _id: movementId, account_id: accountId, delta: amount, reason: amount > 0 ? 'grant' : 'adjustment', note, at: new Date() };
      // An upsert, not an insert: a duplicate-key error would abort the whole transaction, while a
      // matched upsert simply tells us the movement was already applied.
      const { _id, ...fields } = entry;
      const recorded = await ledger(db).updateOne({ _id }, { $setOnInsert: fields }, { upsert: true, session });
      if (recorded.upsertedCount === 0) return;
      const res = await accounts(db).updateOne(
        { _id: accountId, ...(amount < 0 ? { credits: { $gte: -amount } } : {}) },
        { $inc: { credits: amount }, $set: { updated_at: new Date() } },
        { session },
      );
      if (res.matchedCount === 0) {
        const exists = await accounts(db).countDocuments({ _id: accountId }, { session });
        throw new AccountError(exists ? 'invalid' : 'not_found', exists ? 'not enough credits to take that many' : `no account ${accountId}`);
      }
    });
  } finally {
    await session.endSession();
  }
  return getAccount(db, accountId);
}
