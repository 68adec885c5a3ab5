import { COLLECTIONS } from '@dv/contracts';
import { revokeApiKey, type ApiKeyRecord } from '@dv/accounts';
import { definePage, notFound } from '../page.ts';

// POST /app/keys/:id/revoke: the key stops working on every replica (revocation marks) before the
// answer, and with it every OAuth token made from it. Only a key of the viewer's account: another
// account's id is "not found" and nothing changes.

export const keyRevoke = definePage({
  method: 'post',
  path: '/keys/:id/revoke',
  access: 'manage_keys',
  handle: async ({ cc, req, viewer }) => {
    const id = String(req.params.id ?? '');
    // By id only (revokeApiKey also takes a prefix), within this account.
    const key = await cc.api.db.collection<ApiKeyRecord>(COLLECTIONS.apiKeys.name).findOne({ _id: id, account_id: viewer.account._id });
    if (!key) throw notFound('That key');
    await revokeApiKey(cc.api.db, key._id, viewer.account._id, cc.api.marks);
    return { redirect: '/app/keys', flash: { kind: 'ok', text: `The key "${key.name}" (${key.prefix}) is revoked: calls with it, and with connections made from it, are refused from now on.` } };
  },
});
