import { PLANS } from '@dv/contracts';
import { AccountError, createApiKey, type CreatedKey, type KeyMode } from '@dv/accounts';
import { copyable, html, type Node } from '@dv/web';
import type { ConsoleContext } from '../context.ts';
import { definePage, PageError, type PageCall } from '../page.ts';
import type { Viewer } from '../viewer.ts';
import { keysView } from './keys.ts';

// POST /app/keys: creates a key and answers with the page that shows it, the one time it is ever
// shown (the store keeps only its hash). The answer is this POST's own page, never a redirect, so
// no later page (the list, a reload, the back button) can hold it; every page is sent no-store.
// The form carries a one-use value: a resent form (reload, double click) creates nothing and says
// so, instead of making a second key.

const NONCE = /^[A-Za-z0-9_-]{16,64}$/;
const NONCE_TTL_SECONDS = 86_400;

/** True the first time this form's value is used. */
async function firstUse(cc: ConsoleContext, accountId: string, nonce: unknown): Promise<boolean> {
  if (typeof nonce !== 'string' || !NONCE.test(nonce)) return false;
  const key = `${cc.api.config.REDIS_KEY_PREFIX}console:key-form:${accountId}:${nonce}`;
  return (await cc.api.redis.set(key, '1', 'EX', NONCE_TTL_SECONDS, 'NX')) === 'OK';
}

function usage(cc: ConsoleContext, created: CreatedKey): Node {
  const example = `curl -X POST ${cc.baseUrl}/v1/verify \\\n  -H "Authorization: Bearer ${created.key}" \\\n  -H "Content-Type: application/json" \\\n  -d '{"email": "jane.doe@example.com"}'`;
  return html`<h2>Use it</h2>
    <p>Send it as a Bearer token. To check one address:</p>
    <pre class="example"><code>${example}</code></pre>
    <p>${created.record.mode === 'sandbox' ? 'A sandbox key is free: its results are simulated and nothing is sent to a mail server.' : 'A live key runs real checks and uses the account’s credits.'} The whole API: <a href="/v1/openapi.json">the OpenAPI document</a>.</p>`;
}

function shownOnce(call: PageCall<Viewer>, created: CreatedKey) {
  const planNote = PLANS[call.viewer.account.plan].apiAccess
    ? null
    : html`<p class="flash flash-info" role="note">The ${call.viewer.account.plan} plan has no API access: the API answers 403 to this key until the account moves to a plan with API access (<a href="/app/plan">plans</a>).</p>`;
  return {
    title: 'Your new API key',
    noindex: true,
    body: html`<h1>Your new API key: ${created.record.name}</h1>
      <p class="flash flash-ok" role="status"><strong>Copy it now: this is the only time it is shown.</strong> We keep only a hash of it; if it is lost, revoke it and create another.</p>
      ${copyable(created.key, 'the API key')}
      ${planNote}
      ${usage(call.cc, created)}
      <p><a href="/app/keys">Back to the API keys</a></p>`,
  };
}

function readForm(body: Record<string, unknown>): { name: string; mode: string; error?: string } {
  const name = typeof body.name === 'string' ? body.name.trim() : '';
  const mode = typeof body.mode === 'string' ? body.mode : '';
  if (!name) return { name, mode, error: 'Give the key a name, such as "CRM sync".' };
  if (name.length > 100) return { name: name.slice(0, 100), mode, error: `The name is ${name.length} characters long; use at most 100.` };
  if (mode !== 'live' && mode !== 'sandbox') return { name, mode: 'live', error: 'Choose live or sandbox as the mode.' };
  return { name, mode };
}

export const keyCreate = definePage({
  method: 'post',
  path: '/keys',
  access: 'manage_keys',
  handle: async (call) => {
    const { cc, viewer } = call;
    const body = call.req.body as Record<string, unknown>;
    const form = readForm(body);
    if (form.error) return keysView(call, form, 400);
    if (!(await firstUse(cc, viewer.account._id, body.once))) {
      throw new PageError(409, 'Form already sent', 'This form was sent before, so no second key was made. A new key is shown only once, on the page that answered the first sending. Open the API keys page to see the keys, or create another there.');
    }
    try {
      return shownOnce(call, await createApiKey(cc.api.db, viewer.account._id, form.name, form.mode as KeyMode));
    } catch (err) {
      if (err instanceof AccountError && err.code === 'limit') return keysView(call, { ...form, error: 'This account already has the most active keys it may hold. Revoke one first.' }, 409);
      throw err;
    }
  },
});
