import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MongoDependency } from '@dv/runtime';
import { isolatedMongo } from '@dv/runtime/testing';
import { OAuthStore } from './store.ts';

// A resource server remembers the callers its tokens resolve to; ending a grant must stamp every
// token id of it (revocation marks) before the ending request answers, so no replica keeps serving
// a remembered token until its change stream catches up.
let mongo: MongoDependency;
const stamped: string[][] = [];
let store: OAuthStore;

beforeAll(async () => {
  mongo = await isolatedMongo('oauth-marks');
  store = new OAuthStore(mongo.db, {
    collections: { clients: 'c', codes: 'k', tokens: 't' },
    tokenPrefixes: { access: 'at_', refresh: 'rt_', code: 'ac_' },
    ttl: { codeSeconds: 60, accessSeconds: 3600, refreshSeconds: 86_400, clientUnusedSeconds: 86_400 },
    marks: { mark: async (ids) => void stamped.push([...ids]) },
  });
});
afterAll(async () => {
  await mongo.db.dropDatabase();
  await mongo.close();
});

describe('ending a grant stamps its tokens', () => {
  it('revoking either token marks both ids of the grant, and nothing of another grant', async () => {
    const grant = { clientId: 'client_1', keyId: 'key_1', accountId: 'acc_1', resource: null, scope: 'verify' };
    const mine = await store.issue({ ...grant, grantId: 'grant_a' });
    await store.issue({ ...grant, grantId: 'grant_b' });
    const ids = (await mongo.db.collection<{ _id: string }>('t').find({ grant_id: 'grant_a' }).toArray()).map((t) => t._id).sort();
    expect(ids).toHaveLength(2);
    await store.revokeToken('client_1', mine.access_token);
    expect(stamped.map((s) => [...s].sort())).toEqual([ids]);
    expect(await mongo.db.collection('t').countDocuments({ grant_id: 'grant_b' })).toBe(2);
  });

  it('an unknown token stamps nothing', async () => {
    stamped.length = 0;
    await store.revokeToken('client_1', 'at_unknown');
    expect(stamped.flat()).toEqual([]);
  });
});
