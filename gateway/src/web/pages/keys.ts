import { randomBytes } from 'node:crypto';
import { MAX_ACTIVE_KEYS_PER_ACCOUNT, PLANS } from '@dv/contracts';
import { listApiKeys, type ApiKeyRecord, type KeyMode } from '@dv/accounts';
import { badge, field, html, postForm, select, submit, table, type Node } from '@dv/web';
import { plural, relative, utcTime } from '../format.ts';
import { definePage, type PageCall } from '../page.ts';
import type { Viewer } from '../viewer.ts';

// GET /app/keys: the account's API keys (public prefix, name, mode, dates, state), the form that
// creates one and, per active key, its revoke button. Owners only (manage_keys). The full key is
// never on this page: only the answer of the create POST shows it (key-create.ts).

export const KEY_MODES: readonly { value: KeyMode; label: string }[] = [
  { value: 'live', label: 'Live: real checks, uses credits' },
  { value: 'sandbox', label: 'Sandbox: simulated results, free' },
];

/** A fresh value per form: the create POST uses it once, so a reload or a resend makes no second key. */
export const formNonce = (): string => randomBytes(18).toString('base64url');

export interface KeyFormState {
  name?: string;
  mode?: string;
  error?: string;
}

function noApiNote(viewer: Viewer): Node {
  if (PLANS[viewer.account.plan].apiAccess) return null;
  return html`<p class="flash flash-info" role="note">
    The ${viewer.account.plan} plan has no API access. You can create keys now, but the API answers
    <strong>403</strong> to every call with them until the account moves to a plan with API access.
    <a href="/app/plan">See the plans</a>.
  </p>`;
}

/** The create form, or, at the limit, the words that say why there is none. */
export function createForm(call: PageCall<Viewer>, active: number, state: KeyFormState = {}): Node {
  if (active >= MAX_ACTIVE_KEYS_PER_ACCOUNT) {
    return html`<p class="flash flash-info" role="note">This account has ${MAX_ACTIVE_KEYS_PER_ACCOUNT} active keys, the most it may hold. Revoke a key you no longer use to create another.</p>`;
  }
  const mode = state.mode ?? (call.viewer.sandbox ? 'sandbox' : 'live');
  return postForm(
    '/app/keys',
    call.csrf(),
    html`${field({ name: 'name', label: 'Name', value: state.name ?? '', error: state.error, required: true, hint: 'What uses the key, such as "CRM sync" (1 to 100 characters).' })}
      ${select({ name: 'mode', label: 'Mode', value: mode, options: KEY_MODES })}
      <input type="hidden" name="once" value=${formNonce()} />
      ${submit('Create key')}`,
    { label: 'Create an API key' },
  );
}

function revokeForm(call: PageCall<Viewer>, k: ApiKeyRecord): Node {
  return html`<form method="post" action=${`/app/keys/${encodeURIComponent(k._id)}/revoke`} class="inline" data-confirm=${`Revoke the key "${k.name}"? Every program using it is refused from then on.`}>
    <input type="hidden" name="_csrf" value=${call.csrf()} />
    <button type="submit" class="btn btn-danger" aria-label=${`Revoke ${k.name}`}>Revoke</button>
  </form>`;
}

function keysTable(call: PageCall<Viewer>, keys: readonly ApiKeyRecord[]): Node {
  return table<ApiKeyRecord>(
    'API keys of this account',
    [
      { header: 'Name', cell: (k) => k.name },
      { header: 'Key', cell: (k) => html`<code>${k.prefix}…</code>` },
      { header: 'Mode', cell: (k) => badge(k.mode, k.mode === 'live' ? 'ok' : 'neutral') },
      { header: 'Created', cell: (k) => utcTime(k.created_at) },
      { header: 'Last used', cell: (k) => (k.last_used_at ? relative(k.last_used_at) : 'never') },
      { header: 'State', cell: (k) => (k.revoked_at ? html`${badge('revoked', 'bad')} <span class="muted">${utcTime(k.revoked_at)}</span>` : badge('active', 'ok')) },
      { header: 'Action', cell: (k) => (k.revoked_at ? null : revokeForm(call, k)) },
    ],
    keys,
    'No API keys yet. Create one below to call the API.',
  );
}

/** The whole keys page; the create POST shows it again with the form's error. */
export async function keysView(call: PageCall<Viewer>, state: KeyFormState = {}, status = 200) {
  const keys = await listApiKeys(call.cc.api.db, call.viewer.account._id);
  const active = keys.filter((k) => k.revoked_at === null).length;
  return {
    title: 'API keys',
    status,
    body: html`<h1>API keys</h1>
      <p class="lead">Programs call the API with a key: <code>${"Authorization: Bearer <key>"}</code>. A key is shown once, when it is created; only its first characters are kept in view here.</p>
      ${noApiNote(call.viewer)}
      ${keysTable(call, keys)}
      <section aria-labelledby="new-key-h">
        <h2 id="new-key-h">Create a key</h2>
        <p>${plural(active, 'active key')} of at most ${MAX_ACTIVE_KEYS_PER_ACCOUNT} per account.</p>
        ${createForm(call, active, state)}
      </section>`,
  };
}

export const keysPage = definePage({
  method: 'get',
  path: '/keys',
  access: 'manage_keys',
  handle: (call) => keysView(call),
});
