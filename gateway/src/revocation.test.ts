import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COLLECTIONS, newId } from '@dv/contracts';
import { generateKey, revokeApiKey, type ApiKeyRecord, setAccountPlan, setAccountStatus } from '@dv/accounts';
import { inLanes } from '@dv/accounts/testing';
import { createHttpApp, createLogger, createRegistry } from '@dv/runtime';
import { call } from '@dv/test-kit';
import { mountGateway } from './app.ts';
import { createGatewayContext, startContext, stopContext, type GatewayContext } from './context.ts';
import { startGatewayHarness, TEST_DOWNLOAD_SECRET, type GatewayHarness, type TestAccount } from './testing/harness.ts';

// A revocation holds on every replica from the moment it answers: two gateway replicas on one
// stack, both remembering keys, under background load (API calls and account writes, whose change
// events the replicas' streams must wade through). A key used on both, then revoked; the very next
// call on either is 401, every time. The same for an account deactivated and a plan downgraded.

let h: GatewayHarness;
let b: { url: string; ctx: GatewayContext; close: () => Promise<void> };
let busy: TestAccount;
let stopLoad: () => Promise<void>;

/** A second gateway on the harness's MongoDB, Redis and NATS: another replica of the same service. */
async function replica(): Promise<typeof b> {
  const log = createLogger('gateway', 'silent');
  const ctx = createGatewayContext({ config: h.ctx.config, downloadSecret: TEST_DOWNLOAD_SECRET, log, registry: createRegistry('gateway'), db: h.db, redis: h.redis, nc: h.nc, shutdownSignal: new AbortController().signal });
  await startContext(ctx);
  const app = createHttpApp({ registry: createRegistry('gateway'), log, dependencies: () => [], isShuttingDown: () => false });
  mountGateway(app, ctx);
  const srv: Server = createServer(app);
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}`,
    ctx,
    close: async () => {
      srv.closeAllConnections();
      await new Promise<void>((r) => srv.close(() => r()));
      await stopContext(ctx);
    },
  };
}

/** Calls on both replicas, one after another on each, until stopped. */
function backgroundLoad(): () => Promise<void> {
  let on = true;
  const loops = [h.url, b.url].map(async (url) => {
    while (on) await call(url, '/v1/account', { key: busy.live });
  });
  return async () => {
    on = false;
    await Promise.all(loops);
  };
}

/** `n` live keys of the account, inserted at once (createApiKey one by one is most of a minute on this stack). */
async function manyKeys(accountId: string, n: number): Promise<{ key: string; id: string }[]> {
  const made = Array.from({ length: n }, (_, i) => {
    const g = generateKey('live');
    return { key: g.key, record: { _id: newId('apiKey'), account_id: accountId, name: `k${i}`, mode: 'live' as const, prefix: g.prefix, hash: g.hash, created_at: new Date(), revoked_at: null, last_used_at: null } };
  });
  await h.db.collection<ApiKeyRecord>(COLLECTIONS.apiKeys.name).insertMany(made.map((m) => m.record));
  return made.map((m) => ({ key: m.key, id: m.record._id }));
}

/** An authenticated call that costs the replica nothing but authentication and its limits. */
const status = async (url: string, key: string) => (await call(url, '/v1/status', { key })).status;

beforeAll(async () => {
  // The per-address attempt limit off: this test alone makes thousands of lookups from 127.0.0.1.
  h = await startGatewayHarness({ label: 'revocation', env: { AUTH_ATTEMPTS_PER_IP_PER_MINUTE: '0' } });
  b = await replica();
  const unlimited = { requestsPerMinute: 10_000_000 };
  busy = await h.account({ plan: 'enterprise', limits: unlimited });
  stopLoad = backgroundLoad();
});
afterAll(async () => {
  await stopLoad?.();
  await b?.close();
  await h?.close();
});

describe('revocation across two gateway replicas under load', () => {
  it('1,000 keys, each used on both replicas and revoked: the next call on either is 401 every time', { timeout: 600_000 }, async () => {
    const owner = await h.account({ plan: 'enterprise', limits: { requestsPerMinute: 10_000_000 } });
    const keys = await manyKeys(owner.account._id, 1_000);
    // Ten independent lanes of 100 keys each: every key is remembered by both replicas, revoked,
    // and tried on both at once right after the revocation answers.
    const served = await inLanes(keys, 10, async ({ key, id }, i) => {
      for (const url of [h.url, b.url]) expect(await status(url, key)).toBe(200);
      await revokeApiKey(h.db, id, owner.account._id, h.ctx.marks);
      const [onA, onB] = await Promise.all([status(h.url, key), status(b.url, key)]);
      return onA !== 401 || onB !== 401 ? `#${i}: ${onA}/${onB}` : null;
    });
    expect(served).toEqual([]);
  });

  it('an account deactivated, or moved to a plan without API access, is refused from its next call on both', { timeout: 120_000 }, async () => {
    const refused: string[] = [];
    for (let i = 0; i < 20; i++) {
      const a = await h.account({ plan: 'enterprise' });
      for (const url of [h.url, b.url, h.url, b.url]) expect(await status(url, a.live)).toBe(200);
      if (i % 2 === 0) await setAccountStatus(h.db, a.account._id, 'inactive', h.ctx.marks);
      else await setAccountPlan(h.db, a.account._id, 'free', h.ctx.marks);
      const [onA, onB] = [await status(h.url, a.live), await status(b.url, a.live)];
      if (onA !== 403 || onB !== 403) refused.push(`#${i}: ${onA}/${onB}`);
    }
    expect(refused).toEqual([]);
  });
});
