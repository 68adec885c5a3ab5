import { consoleLimits } from '@dv/contracts';
import type { ApiKeyRecord } from '@dv/accounts';
import type { Caller } from '../services/auth.ts';
import type { Viewer } from './viewer.ts';

// The console acts for the account through the same services as the API (JobService, limits,
// credits), as a caller of its own: the account with the limits the console allows its plan
// (a plan without API access still runs lists here), the person as the "key" a job records
// (`key_id` console:<person>), and the session's mode (sandbox or live).

export function consoleCaller(viewer: Viewer): Caller {
  const now = new Date();
  const key: ApiKeyRecord = {
    _id: `console:${viewer.personId}`,
    account_id: viewer.account._id,
    name: `Console: ${viewer.email}`,
    mode: viewer.sandbox ? 'sandbox' : 'live',
    prefix: 'console',
    hash: '',
    created_at: now,
    revoked_at: null,
    last_used_at: now,
  };
  return { account: { ...viewer.account, limits: consoleLimits(viewer.account.plan, viewer.account.limits) }, key, mode: key.mode };
}
