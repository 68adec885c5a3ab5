import type { Db, MongoServerError } from 'mongodb';
import { COLLECTIONS, MAX_ACTIVE_PORTFOLIO_KEYS, PORTFOLIO_COUNTERS, PORTFOLIO_PLANS, type CounterDoc, type PortfolioKeyDoc, type PortfolioPlanName } from '@dv/contracts';
import { hashKey, keyMatches, randomString } from './keys.ts';
import type { AuthMarks } from './auth-marks.ts';
import type { Account } from './model.ts';
import { AccountError, getAccount } from './store.ts';

// Portfolio API keys (docs/portfolio-scanner.md "API"): `svc_live_` and 40
// random characters (~234 bits), so a plain SHA-256 is the right stored form, as for the
// verification keys (keys.ts): hashing and the constant-time compare are shared with them. The
// formats never overlap (dv_live_/dv_test_, dk_free_, svc_live_), and the keys live in their own
// collection, so a key of one service never authenticates on another.

export const PORTFOLIO_KEY_PREFIX = 'svc_live_';
const SECRET_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';
const SECRET_LEN = 40;
const PORTFOLIO_KEY_PATTERN = /^svc_live_[A-Za-z2-9]{40}$/;
/** Spec: key_prefix = the first 12 characters. */
export const PORTFOLIO_KEY_PREFIX_LEN = 12;

const keys = (db: Db) => db.collection<PortfolioKeyDoc>(COLLECTIONS.portfolioApiKeys.name);
const accounts = (db: Db) => db.collection<Account>(COLLECTIONS.accounts.name);

export function isPortfolioKeyShape(presented: string): boolean {
  return PORTFOLIO_KEY_PATTERN.test(presented);
}

export interface CreatedPortfolioKey {
  /** The full key, returned this once only. */
  key: string;
  record: PortfolioKeyDoc;
}

/** The public view of a key (spec "API key"): never the hash. */
export function publicPortfolioKey(k: PortfolioKeyDoc) {
  return { id: k.id, key_prefix: k.key_prefix, name: k.name, created_at: k.created_at, last_used_at: k.last_used_at, is_active: isActive(k, new Date()), expires_at: k.expires_at };
}

function isActive(k: PortfolioKeyDoc, now: Date): boolean {
  return k.revoked_at === null && (k.expires_at === null || k.expires_at > now);
}

/** With `marks`, a plan without API access is refused from the account's next call on, on every replica (auth-marks.ts). */
export async function setPortfolioPlan(db: Db, accountId: string, plan: PortfolioPlanName | null, marks?: AuthMarks): Promise<Account> {
  if (plan !== null && !(plan in PORTFOLIO_PLANS)) throw new AccountError('invalid', `portfolio plan must be one of ${Object.keys(PORTFOLIO_PLANS).join(', ')}`);
  const updated = await accounts(db).findOneAndUpdate({ _id: accountId }, { $set: { portfolio_plan: plan, updated_at: new Date() } }, { returnDocument: 'after' });
  if (!updated) throw new AccountError('not_found', `no account ${accountId}`);
  await marks?.mark([accountId]);
  return updated;
}

/**
 * Creates a key unless the account already holds MAX_ACTIVE_PORTFOLIO_KEYS active ones. Two
 * concurrent creations could both pass the count; the one that finds itself over the limit after
 * inserting withdraws its key, so the limit holds without a lock.
 */
export async function createPortfolioKey(db: Db, accountId: string, name: string, opts: { expiresAt?: Date | null; now?: Date } = {}): Promise<CreatedPortfolioKey> {
  await getAccount(db, accountId);
  const trimmed = name.trim();
  if (!trimmed || trimmed.length > 100) throw new AccountError('invalid', 'key name must be 1-100 characters');
  const now = opts.now ?? new Date();
  if (opts.expiresAt && opts.expiresAt <= now) throw new AccountError('invalid', 'expires_at must be in the future');
  if ((await countActive(db, accountId, now)) >= MAX_ACTIVE_PORTFOLIO_KEYS) throw limitError();
  const counter = await db.collection<CounterDoc>(COLLECTIONS.counters.name).findOneAndUpdate({ _id: PORTFOLIO_COUNTERS.apiKeys(accountId) }, { $inc: { seq: 1 } }, { upsert: true, returnDocument: 'after' });
  const id = (counter as CounterDoc).seq;
  const key = `${PORTFOLIO_KEY_PREFIX}${randomString(SECRET_ALPHABET, SECRET_LEN)}`;
  const record: PortfolioKeyDoc = {
    _id: `${accountId}:${id}`,
    id,
    account_id: accountId,
    name: trimmed,
    key_prefix: key.slice(0, PORTFOLIO_KEY_PREFIX_LEN),
    hash: hashKey(key),
    created_at: now,
    last_used_at: null,
    revoked_at: null,
    expires_at: opts.expiresAt ?? null,
  };
  try {
    await keys(db).insertOne(record);
  } catch (err) {
    if ((err as MongoServerError).code === 11000) throw new AccountError('conflict', 'key collision; try again');
    throw err;
  }
  const active = await keys(db).find({ account_id: accountId, revoked_at: null }).sort({ id: 1 }).toArray();
  const live = active.filter((k) => isActive(k, now));
  if (live.length > MAX_ACTIVE_PORTFOLIO_KEYS && live.slice(MAX_ACTIVE_PORTFOLIO_KEYS).some((k) => k.id === id)) {
    await keys(db).deleteOne({ _id: record._id });
    throw limitError();
  }
  return { key, record };
}

function limitError(): AccountError {
  return new AccountError('limit', `an account may hold at most ${MAX_ACTIVE_PORTFOLIO_KEYS} active portfolio API keys; revoke one first`);
}

async function countActive(db: Db, accountId: string, now: Date): Promise<number> {
  return keys(db).countDocuments({ account_id: accountId, revoked_at: null, $or: [{ expires_at: null }, { expires_at: { $gt: now } }] });
}

export async function listPortfolioKeys(db: Db, accountId: string): Promise<PortfolioKeyDoc[]> {
  return keys(db).find({ account_id: accountId }).sort({ id: 1 }).toArray();
}

/**
 * Revokes the account's key `id`; idempotent (keeps the first revocation time). Null when the
 * account has no such key. With `marks`, the key fails on every replica before this returns.
 */
export async function revokePortfolioKey(db: Db, accountId: string, id: number, marks?: AuthMarks): Promise<PortfolioKeyDoc | null> {
  const now = new Date();
  const updated = (await keys(db).findOneAndUpdate({ account_id: accountId, id, revoked_at: null }, { $set: { revoked_at: now } }, { returnDocument: 'after' })) ?? (await keys(db).findOne({ account_id: accountId, id }));
  if (updated) await marks?.mark([updated._id]);
  return updated;
}

export type PortfolioKeyLookup = { ok: true; account: Account; key: PortfolioKeyDoc } | { ok: false; reason: 'malformed' | 'unknown' | 'revoked' | 'expired' | 'no_account' };

/** Finds a presented key by its hash and compares in constant time (the portfolio API's KeyAuthenticator resolver). */
export async function lookupPortfolioKey(db: Db, presented: string, now = new Date()): Promise<PortfolioKeyLookup> {
  if (!isPortfolioKeyShape(presented)) return { ok: false, reason: 'malformed' };
  const key = await keys(db).findOne({ hash: hashKey(presented) });
  if (!key || !keyMatches(presented, key.hash)) return { ok: false, reason: 'unknown' };
  if (key.revoked_at !== null) return { ok: false, reason: 'revoked' };
  if (key.expires_at !== null && key.expires_at <= now) return { ok: false, reason: 'expired' };
  const account = await accounts(db).findOne({ _id: key.account_id });
  if (!account) return { ok: false, reason: 'no_account' };
  return { ok: true, account, key };
}

/**
 * The key `keyId` and its account while the key works (not revoked, not expired): what an OAuth
 * token made from the key resolves to, read on every call like the key itself.
 */
export async function activePortfolioKeyById(db: Db, keyId: string, now = new Date()): Promise<{ account: Account; key: PortfolioKeyDoc } | null> {
  const key = await keys(db).findOne({ _id: keyId });
  if (!key || !isActive(key, now)) return null;
  const account = await accounts(db).findOne({ _id: key.account_id });
  return account ? { account, key } : null;
}

/** last_used_at; the caller decides how often (it is a write per call otherwise). */
export async function touchPortfolioKey(db: Db, keyId: string, at: Date): Promise<void> {
  await keys(db).updateOne({ _id: keyId }, { $set: { last_used_at: at } });
}
