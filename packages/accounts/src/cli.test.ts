import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COLLECTIONS } from '@dv/contracts';
import { Redis } from 'ioredis';
import type { MongoDependency } from '@dv/runtime';
import { isolatedMongo } from '@dv/runtime/testing';
import { stackEnv } from '@dv/test-kit';
import { AUTH_MARK_KEY_PREFIX } from './auth-marks.ts';
import { createAccount, listAccounts } from './store.ts';

const run = promisify(execFile);
// Each command is a Node process (1-3 s on a loaded 2-core machine), so tests that run several get
// 90 s instead of the default 30.
const CLI = join(import.meta.dirname, 'cli.ts');
let mongo: MongoDependency;
let env: NodeJS.ProcessEnv;
let redis: Redis;

async function admin(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  return adminWith(env, ...args);
}

async function adminWith(withEnv: NodeJS.ProcessEnv, ...args: string[]): Promise<{ code: number; out: string; err: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args], { env: withEnv });
    return { code: 0, out: stdout, err: stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, out: err.stdout, err: err.stderr };
  }
}

beforeAll(async () => {
  mongo = await isolatedMongo('admin');
  redis = new Redis(stackEnv().REDIS_URL!);
  env = { ...process.env, MONGODB_URL: stackEnv().MONGODB_URL, REDIS_URL: stackEnv().REDIS_URL, MONGODB_DB: mongo.db.databaseName };
});

afterAll(async () => {
  redis?.disconnect();
  await mongo.db.dropDatabase();
  await mongo.close();
});

describe('npm run admin', () => {
  it('creates an account, a key shown once, lists and revokes it, adds credits', { timeout: 180_000 }, async () => {
    const created = await admin('account:create', '--name', 'CLI Co', '--email', 'cli@acme.test', '--plan', 'pro', '--credits', '100');
    expect(created.code).toBe(0);
    const account = JSON.parse(created.out) as { _id: string; credits: number };
    expect(account.credits).toBe(100);

    const key = await admin('key:create', '--account', account._id, '--name', 'ci', '--mode', 'sandbox');
    const { key: full, id } = JSON.parse(key.out) as { key: string; id: string };
    expect(full).toMatch(/^dv_test_/);

    const list = await admin('key:list', '--account', account._id);
    expect(list.out).not.toContain(full);
    expect(list.out).not.toContain('hash');
    expect(JSON.parse(list.out)).toMatchObject([{ id, active: true }]);

    // Without Redis a revocation could not reach the replicas at once: refused, nothing changed.
    const noRedis = await adminWith({ ...env, REDIS_URL: '', DV_LOCAL_DIR: mkdtempSync(join(tmpdir(), 'admin-')) }, 'key:revoke', '--key', id);
    expect(noRedis.code).toBe(2);
    expect(noRedis.err).toMatch(/REDIS_URL/);
    expect(await mongo.db.collection(COLLECTIONS.apiKeys.name).countDocuments({ revoked_at: { $ne: null } })).toBe(0);
    expect((await admin('key:revoke', '--key', id)).code).toBe(0);
    // The revocation mark every API replica checks on its next call with the key (auth-marks.ts).
    expect(Number(await redis.get(`${AUTH_MARK_KEY_PREFIX}${id}`))).toBeGreaterThan(0);
    expect(JSON.parse((await admin('key:list', '--account', account._id)).out)).toMatchObject([{ id, active: false }]);
    expect(await mongo.db.collection(COLLECTIONS.apiKeys.name).countDocuments({ revoked_at: { $ne: null } })).toBe(1);

    const credits = await admin('credits:add', '--account', account._id, '--amount', '50');
    expect(JSON.parse(credits.out)).toEqual({ account_id: account._id, credits: 150 });

    expect(JSON.parse((await admin('account:status', '--account', account._id, '--status', 'inactive')).out)).toEqual({ account_id: account._id, status: 'inactive' });
    expect(Number(await redis.get(`${AUTH_MARK_KEY_PREFIX}${account._id}`))).toBeGreaterThan(0);
  });

  it('lists accounts newest first without secrets, and finds them by id or part of a name or email', { timeout: 90_000 }, async () => {
    const a = await createAccount(mongo.db, { name: 'Findable Ltd', email: 'ops@findable.test', plan: 'business' });
    const b = await createAccount(mongo.db, { name: 'Other (co)', email: 'x+y@other.test', plan: 'pro' });
    // The two commands as a user runs them (each a process: kept to two on a busy machine).
    const list = await admin('account:list', '--limit', '2');
    expect(list.out).not.toContain('whsec_');
    expect((JSON.parse(list.out) as { account_id: string }[]).map((r) => r.account_id)).toEqual([b._id, a._id]);
    expect((JSON.parse((await admin('account:find', '--query', 'FINDABLE')).out) as { account_id: string }[]).map((r) => r.account_id)).toEqual([a._id]);
    // The query rules, on the function the commands call.
    const find = async (query: string) => (await listAccounts(mongo.db, { query })).map((r) => r.account_id);
    expect(await find(a._id)).toEqual([a._id]);
    // Taken literally: regex characters in the query match themselves.
    expect(await find('x+y@')).toEqual([b._id]);
    expect(await find('(co)')).toEqual([b._id]);
    expect(await find('.*')).toEqual([]);
  });

  it('explains bad input and exits non-zero', { timeout: 90_000 }, async () => {
    const noPlan = await admin('account:create', '--name', 'x', '--email', 'x@acme.test', '--plan', 'platinum');
    expect(noPlan.code).toBe(2);
    expect(noPlan.err).toContain('--plan must be one of');
    const unknown = await admin('frobnicate');
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain('unknown command');
    const badAmount = await admin('credits:add', '--account', 'acc_x', '--amount', '1.5');
    expect(badAmount.err).toContain('whole number');
  });
});

describe('npm run admin: portfolio API', () => {
  it('sets the portfolio plan, creates svc_live_ keys (at most 3 active), lists prefixes only, revokes', { timeout: 90_000 }, async () => {
    const account = JSON.parse((await admin('account:create', '--name', 'Folio', '--email', 'folio@acme.test', '--plan', 'business')).out) as { _id: string };
    expect(JSON.parse((await admin('portfolio:plan', '--account', account._id, '--plan', 'enterprise_max')).out)).toEqual({ account_id: account._id, portfolio_plan: 'enterprise_max' });
    const created = JSON.parse((await admin('portfolio-key:create', '--account', account._id, '--name', 'ci')).out) as { key: string; id: number; key_prefix: string };
    expect(created.key).toMatch(/^svc_live_[A-Za-z0-9]{40}$/);
    expect(created).toMatchObject({ id: 1, key_prefix: created.key.slice(0, 12), is_active: true });
    for (const name of ['two', 'three']) expect((await admin('portfolio-key:create', '--account', account._id, '--name', name)).code).toBe(0);
    const fourth = await admin('portfolio-key:create', '--account', account._id, '--name', 'four');
    expect(fourth.code).toBe(2);
    expect(fourth.err).toContain('at most 3 active');
    const list = await admin('portfolio-key:list', '--account', account._id);
    expect(list.out).not.toContain(created.key);
    expect(JSON.parse((await admin('portfolio-key:revoke', '--account', account._id, '--key', '1')).out)).toMatchObject({ id: 1, is_active: false });
    expect((await admin('portfolio-key:revoke', '--account', account._id, '--key', '9')).code).toBe(2);
    const bad = await admin('portfolio:plan', '--account', account._id, '--plan', 'gold');
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--plan must be none or one of');
  });
});
