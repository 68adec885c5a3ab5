import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashKey, PORTFOLIO_KEY_PREFIX, PORTFOLIO_KEY_PREFIX_LEN, setAccountStatus, setPortfolioPlan } from '@dv/accounts';
import { inLanes } from '@dv/accounts/testing';
import { COLLECTIONS, type PortfolioKeyDoc } from '@dv/contracts';
import { until } from '@dv/test-kit';
import { startHarness, type Harness } from './testing/harness.ts';

// A revocation holds on every replica from the moment it answers: two replicas of the portfolio
// API on one MongoDB and Redis, both remembering keys (as the service does), under background
// load. Keys used on both, then revoked through DELETE /api/v1/keys/{id}/ on one replica: the
// next call on either is 401, every time. The same for an account deactivated or moved to a plan
// without API access (403), and a well-formed unknown key costs one MongoDB read, not one a call.

let a: Harness;
let b: Harness;
let stopLoad: () => Promise<void>;

/** Calls on both replicas, one after another on each, until stopped. */
function backgroundLoad(key: string): () => Promise<void> {
  let on = true;
  const loops = [a, b].map(async (h) => {
    while (on) await h.call('GET', '/api/v1/', { key });
  });
  return async () => {
    on = false;
    await Promise.all(loops);
  };
}

/** `n` more keys of the account, inserted at once (the API holds an account to three active keys). */
async function manyKeys(accountId: string, n: number): Promise<{ key: string; id: number }[]> {
  const made = Array.from({ length: n }, (_, i) => {
    const key = `${PORTFOLIO_KEY_PREFIX}${randomBytes(30).toString('base64').replace(/[^A-Za-z2-9]/g, 'x').slice(0, 40)}`;
    const id = 100 + i;
    const doc: PortfolioKeyDoc = { _id: `${accountId}:${id}`, id, account_id: accountId, name: `k${i}`, key_prefix: key.slice(0, PORTFOLIO_KEY_PREFIX_LEN), hash: hashKey(key), created_at: new Date(), last_used_at: null, revoked_at: null, expires_at: null };
    return { key, doc };
  });
  await a.db.collection<PortfolioKeyDoc>(COLLECTIONS.portfolioApiKeys.name).insertMany(made.map((m) => m.doc));
  return made.map((m) => ({ key: m.key, id: m.doc.id }));
}

const status = async (h: Harness, key: string) => (await h.call('GET', '/api/v1/', { key })).status;

beforeAll(async () => {
  // The per-address lookup limit off: this file alone makes thousands of lookups from 127.0.0.1.
  a = await startHarness('prevoke', { authAttemptsPerIpPerMinute: 0 });
  b = await startHarness('prevoke', { replicaOf: a, authAttemptsPerIpPerMinute: 0 });
  stopLoad = backgroundLoad((await a.account('enterprise_max_premium')).key);
});
afterAll(async () => {
  await stopLoad?.();
  await b?.close();
  await a?.close();
});

describe('revocation across two portfolio API replicas under load', () => {
  it('1,000 keys, each used on both replicas and revoked: the next call on either is 401 every time', { timeout: 600_000 }, async () => {
    const owner = await a.account('enterprise_max_premium');
    const keys = await manyKeys(owner.accountId, 1_000);
    // Ten independent lanes of 100 keys each: every key is remembered by both replicas, revoked
    // through one of them (alternately), and tried on both at once right after the answer.
    const served = await inLanes(keys, 10, async ({ key, id }, i) => {
      for (const h of [a, b]) expect(await status(h, key)).toBe(200);
      const revoked = await (i % 2 ? a : b).call('DELETE', `/api/v1/keys/${id}/`, { key: owner.key });
      expect(revoked.status).toBe(200);
      const [onA, onB] = await Promise.all([status(a, key), status(b, key)]);
      return onA !== 401 || onB !== 401 ? `#${i}: ${onA}/${onB}` : null;
    });
    expect(served).toEqual([]);
  });

  it('an account deactivated, or moved to a plan without API access, is refused from its next call on both', { timeout: 120_000 }, async () => {
    const refused: string[] = [];
    for (let i = 0; i < 20; i++) {
      const acc = await a.account('enterprise');
      for (const h of [a, b]) expect(await status(h, acc.key)).toBe(200);
      if (i % 2 === 0) await setAccountStatus(a.db, acc.accountId, 'inactive', a.ctx.marks);
      else await setPortfolioPlan(a.db, acc.accountId, 'business', a.ctx.marks);
      const [onA, onB] = await Promise.all([status(a, acc.key), status(b, acc.key)]);
      if (onA !== 403 || onB !== 403) refused.push(`#${i}: ${onA}/${onB}`);
    }
    expect(refused).toEqual([]);
  });

  it('a mark on the key makes the next calls read again, and calls that miss at once share one read', async () => {
    const c = await a.account('enterprise');
    const auth = a.ctx.auth;
    // Until the account's own creation events have passed the change stream: a call from memory.
    await until(async () => {
      const before = auth.reads;
      await auth.authenticate(c.key);
      return auth.reads === before ? true : null;
    }, 20_000, 'key remembered');
    const reads = auth.reads;
    await a.ctx.marks.mark([`${c.accountId}:1`]);
    const all = await Promise.all(Array.from({ length: 20 }, () => auth.authenticate(c.key)));
    expect(all.every((f) => f.account._id === c.accountId)).toBe(true);
    expect(auth.reads).toBe(reads + 1);
    await auth.authenticate(c.key);
    expect(auth.reads).toBe(reads + 1);
  });

  it('a well-formed unknown key costs one MongoDB read, not one per call', async () => {
    const unknown = `${PORTFOLIO_KEY_PREFIX}${'Q'.repeat(40)}`;
    const reads = a.ctx.auth.reads;
    for (let i = 0; i < 5; i++) expect(await status(a, unknown)).toBe(401);
    expect(a.ctx.auth.reads).toBe(reads + 1);
  });
});
