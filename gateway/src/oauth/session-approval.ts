import { createHmac } from 'node:crypto';
import type { Request, Response } from 'express';
import { COLLECTIONS, PLANS } from '@dv/contracts';
import { activeKeyById, can, type ApiKeyRecord } from '@dv/accounts';
import type { KeyCheck, SessionApproval } from '@dv/oauth';
import type { ConsoleContext } from '../web/context.ts';
import { loadViewer, type Viewer } from '../web/viewer.ts';

// "Approve as <person> with key <name>" on the connector's consent page: a person signed in to the
// console approves with one of their account's active keys of the console's current mode (live,
// or sandbox while the sandbox switch is on), instead of pasting one. Keys are the owners'
// (manage_keys): a member is told that an owner must approve or a key be pasted. The approval is
// checked again here at the POST, from the session read afresh: the key must be this account's,
// active, of that mode, and the account able to use the API; the form's key id is only a choice.

const refuse = (message: string): KeyCheck => ({ ok: false, message, wrongKey: false });

/** Why this account's keys cannot make a working connection now, or null. */
function accountRefusal(viewer: Viewer): string | null {
  const a = viewer.account;
  if (a.status !== 'active') return `${a.name} is inactive, so a connection would be refused. Reactivate it first.`;
  if (!PLANS[a.plan].apiAccess) return `The ${a.plan} plan of ${a.name} has no API access, so a connection would be refused. Move the account to a plan with API access first.`;
  return null;
}

const modeOf = (viewer: Viewer): ApiKeyRecord['mode'] => (viewer.sandbox ? 'sandbox' : 'live');

async function offeredKeys(cc: ConsoleContext, viewer: Viewer): Promise<ApiKeyRecord[]> {
  const mode = modeOf(viewer);
  return cc.api.db.collection<ApiKeyRecord>(COLLECTIONS.apiKeys.name).find({ account_id: viewer.account._id, revoked_at: null, mode }).sort({ created_at: -1 }).toArray();
}

/** The key of this id, when this session may approve with it now. */
async function approveWith(viewer: Viewer, cc: ConsoleContext, keyId: string): Promise<KeyCheck> {
  if (!can(viewer.role, 'manage_keys')) return refuse(`Only an owner of ${viewer.account.name} can approve with its keys. Ask an owner, or paste an API key.`);
  const found = await activeKeyById(cc.api.db, keyId);
  if (!found || found.key.account_id !== viewer.account._id) return refuse('That key is not an active key of this account. Reload the page and choose again.');
  if (found.key.mode !== modeOf(viewer)) return refuse(`That key is a ${found.key.mode} key; the console is in ${modeOf(viewer)} mode. Reload the page and choose again.`);
  const why = accountRefusal({ ...viewer, account: found.account });
  if (why) return refuse(why);
  return { ok: true, keyId: found.key._id, accountId: found.account._id };
}

/** The @dv/oauth sessionApproval hook of the gateway: the console's session on the consent request. */
export function consoleSessionApproval(cc: ConsoleContext): (req: Request, res: Response) => Promise<SessionApproval | null> {
  return async (req, res) => {
    const viewer = await loadViewer(cc, req, res);
    if (!viewer) return null;
    const binding = createHmac('sha256', cc.csrfSecret).update(`oauth consent:${viewer.session.id}`).digest('base64url');
    const approve = (keyId: string) => approveWith(viewer, cc, keyId);
    if (!can(viewer.role, 'manage_keys')) return { who: viewer.email, binding, keys: null, approve };
    const why = accountRefusal(viewer);
    if (why) return { who: viewer.email, binding, keys: [], note: why, approve };
    const keys = (await offeredKeys(cc, viewer)).map((k) => ({ id: k._id, name: k.name, prefix: k.prefix }));
    const mode = modeOf(viewer);
    const note = `${viewer.account.name} has no active ${mode} key${mode === 'sandbox' ? ' (the console is in sandbox mode)' : ''}. Create one on the API keys page of the console.`;
    return { who: viewer.email, binding, keys, note, approve };
  };
}
