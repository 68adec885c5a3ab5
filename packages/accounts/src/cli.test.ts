import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COLLECTIONS } from '@dv/contracts';
import type { MongoDependency } from '@dv/runtime';
import { isolatedMongo, stackEnv } from '../../../test/helpers.ts';

const run = promisify(execFile);
const CLI = join(import.meta.dirname, 'cli.ts');
let mongo: MongoDependency;
let env: NodeJS.ProcessEnv;

async function admin(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args], { env });
    return { code: 0, out: stdout, err: stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, out: err.stdout, err: err.stderr };
  }
}

beforeAll(async () => {
  mongo = await isolatedMongo('admin');
  env = { ...process.env, MONGODB_URL: stackEnv().MONGODB_URL, MONGODB_DB: mongo.db.databaseName };
});

afterAll(async () => {
  await mongo.db.dropDatabase();
  await mongo.close();
});

describe('npm run admin', () => {
  it('creates an account, a key shown once, lists and revokes it, adds credits', async () => {
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

    expect((await admin('key:revoke', '--key', id)).code).toBe(0);
    expect(JSON.parse((await admin('key:list', '--account', account._id)).out)).toMatchObject([{ id, active: false }]);
    expect(await mongo.db.collection(COLLECTIONS.apiKeys.name).countDocuments({ revoked_at: { $ne: null } })).toBe(1);

    const credits = await admin('credits:add', '--account', account._id, '--amount', '50');
    expect(JSON.parse(credits.out)).toEqual({ account_id: account._id, credits: 150 });
  });

  it('lists accounts newest first without secrets, and finds them by id or part of a name or email', async () => {
    const a = JSON.parse((await admin('account:create', '--name', 'Findable Ltd', '--email', 'ops@findable.test', '--plan', 'business')).out) as { _id: string };
    const b = JSON.parse((await admin('account:create', '--name', 'Other (co)', '--email', 'x+y@other.test', '--plan', 'pro')).out) as { _id: string };
    const list = await admin('account:list');
    expect(list.out).not.toContain('whsec_');
    const ids = (JSON.parse(list.out) as { account_id: string }[]).map((r) => r.account_id);
    expect(ids.indexOf(b._id)).toBeLessThan(ids.indexOf(a._id));
    expect(JSON.parse((await admin('account:list', '--limit', '1')).out)).toHaveLength(1);
    const find = async (q: string) => (JSON.parse((await admin('account:find', '--query', q)).out) as { account_id: string }[]).map((r) => r.account_id);
    expect(await find('FINDABLE')).toEqual([a._id]);
    expect(await find(a._id)).toEqual([a._id]);
    // Taken literally: regex characters in the query match themselves.
    expect(await find('x+y@')).toEqual([b._id]);
    expect(await find('(co)')).toEqual([b._id]);
    expect(await find('.*')).toEqual([]);
  });

  it('explains bad input and exits non-zero', async () => {
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
  it('sets the portfolio plan, creates svc_live_ keys (at most 3 active), lists prefixes only, revokes', async () => {
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
