import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COLLECTIONS, MAX_ACTIVE_KEYS_PER_ACCOUNT } from '@dv/contracts';
import { addMember, generateKey, listApiKeys, type ApiKeyRecord } from '@dv/accounts';
import { oauthFlow, pkce } from '@dv/oauth/testing';
import { call } from '../testing/harness.ts';
import { formToken, postForm, startConsoleHarness, type ConsoleHarness } from '../testing/console.ts';

// The API keys page over HTTP: the list, a key created and shown once (never again: not on the
// list, not on a resent form), the limit of active keys, plans without API access, revocation
// that refuses the key and its OAuth tokens from the answer on, and who may do any of it.

let h: ConsoleHarness;
const flow = oauthFlow(() => h.url);

beforeAll(async () => {
  h = await startConsoleHarness({ label: 'console_keys', env: { OAUTH_REGISTRATIONS_PER_HOUR: '1000' } });
}, 120_000);

afterAll(async () => {
  await h?.close();
});

const page = (path: string, cookie?: string) => h.page(path, cookie);

const nonceOf = (html: string): string => /name="once" value="([^"]+)"/.exec(html)?.[1] ?? '';

async function owner(plan: 'pro' | 'free' = 'pro') {
  const a = await h.account({ plan });
  return { ...a, cookie: await h.sessionCookie(a.account.email) };
}

async function create(cookie: string, name: string, mode = 'live') {
  const form = await page('/app/keys', cookie);
  const res = await postForm(h.url, '/app/keys', cookie, { _csrf: formToken(form.text), once: nonceOf(form.text), name, mode });
  const text = await res.text();
  return { res, text, key: /data-copy="(dv_(?:live|test)_[^"]+)"/.exec(text)?.[1] ?? '', sent: { _csrf: formToken(form.text), once: nonceOf(form.text), name, mode } };
}

describe('the keys page', () => {
  it('lists the keys without secrets, creates one shown once as text, and never shows it again', async () => {
    const o = await owner();
    const list = await page('/app/keys', o.cookie);
    expect(list.res.status).toBe(200);
    expect(list.text).toContain('2 active keys of at most 10 per account.');
    expect(list.text).not.toContain(o.live);
    const made = await create(o.cookie, '<b>CRM</b> sync', 'live');
    expect(made.res.status).toBe(200);
    expect(made.res.headers.get('cache-control')).toContain('no-store');
    expect(made.text).toContain('<meta name="robots" content="noindex, nofollow"/>');
    expect(made.text).toContain('&lt;b>CRM&lt;/b> sync');
    expect(made.text).not.toContain('<b>CRM</b>');
    expect(made.key).toMatch(/^dv_live_/);
    expect(made.text).toContain('this is the only time it is shown');
    expect(made.text).toContain(`curl -X POST ${h.url}/v1/verify`);
    expect(made.text).toContain(`-H &quot;Authorization: Bearer ${made.key}&quot;`);
    const me = await call(h.url, '/v1/account', { key: made.key });
    expect([me.status, me.body.key.name]).toEqual([200, '<b>CRM</b> sync']);
    const after = await page('/app/keys', o.cookie);
    expect(after.text).not.toContain(made.key);
    expect(after.text).toContain('&lt;b>CRM&lt;/b> sync');
    // The same form sent again (a reload of the answer): no second key, no key shown.
    const again = await postForm(h.url, '/app/keys', o.cookie, made.sent);
    const againText = await again.text();
    expect(again.status).toBe(409);
    expect(againText).toContain('no second key was made');
    expect(againText).not.toMatch(/dv_live_/);
    expect((await listApiKeys(h.db, o.account._id)).length).toBe(3);
  });

  it('says what is wrong with a form in words, and creates nothing', async () => {
    const o = await owner();
    const empty = await create(o.cookie, '   ');
    expect(empty.res.status).toBe(400);
    expect(empty.text).toContain('Give the key a name');
    const long = await create(o.cookie, 'x'.repeat(101));
    expect(long.text).toContain('use at most 100');
    const mode = await create(o.cookie, 'ok', 'admin');
    expect(mode.text).toContain('Choose live or sandbox');
    expect((await listApiKeys(h.db, o.account._id)).length).toBe(2);
  });

  it('holds at most 10 active keys: the form gives way to the limit in words', async () => {
    const o = await owner();
    const records: ApiKeyRecord[] = Array.from({ length: MAX_ACTIVE_KEYS_PER_ACCOUNT - 2 }, (_, i) => {
      const g = generateKey('sandbox');
      return { _id: `key_cap${i}_${o.account._id}`, account_id: o.account._id, name: `k${i}`, mode: 'sandbox', prefix: g.prefix, hash: g.hash, created_at: new Date(), revoked_at: null, last_used_at: null };
    });
    await h.db.collection<ApiKeyRecord>(COLLECTIONS.apiKeys.name).insertMany(records);
    const full = await page('/app/keys', o.cookie);
    expect(full.text).toContain('This account has 10 active keys, the most it may hold.');
    expect(full.text).not.toContain('name="once"');
    const refused = await postForm(h.url, '/app/keys', o.cookie, { _csrf: formToken(full.text), once: 'x'.repeat(24), name: 'eleventh', mode: 'live' });
    expect(refused.status).toBe(409);
    expect(await refused.text()).toContain('the most it may hold');
    expect((await listApiKeys(h.db, o.account._id)).length).toBe(MAX_ACTIVE_KEYS_PER_ACCOUNT);
  });

  it('on a plan without API access says keys can be made but the API answers 403, with the plan page', async () => {
    const o = await owner('free');
    const list = await page('/app/keys', o.cookie);
    expect(list.text).toContain('The free plan has no API access.');
    expect(list.text).toContain('href="/app/plan"');
    const made = await create(o.cookie, 'for later', 'sandbox');
    expect(made.key).toMatch(/^dv_test_/);
    expect(made.text).toContain('answers 403 to this key');
    expect((await call(h.url, '/v1/account', { key: made.key })).status).toBe(403);
  });
});

describe('revoking a key', () => {
  it('refuses the key and an OAuth token made from it from the answer on', async () => {
    const o = await owner();
    const made = await create(o.cookie, 'to revoke');
    const clientId = (await flow.register()).body.client_id!;
    const { verifier, challenge } = pkce();
    const code = await flow.approve(clientId, challenge, made.key);
    const token = await flow.token({ grant_type: 'authorization_code', code, code_verifier: verifier, client_id: clientId });
    expect(token.status, JSON.stringify(token.body)).toBe(200);
    const access = token.body.access_token!;
    // Both remembered by this replica before the revocation.
    expect((await call(h.url, '/v1/account', { key: made.key })).status).toBe(200);
    expect((await call(h.url, '/v1/account', { key: access })).status).toBe(200);
    const id = (await listApiKeys(h.db, o.account._id)).find((k) => k.name === 'to revoke')!._id;
    const list = await page('/app/keys', o.cookie);
    expect(list.text).toContain(`action="/app/keys/${id}/revoke"`);
    expect(list.text).toContain('data-confirm="Revoke the key &quot;to revoke&quot;?');
    const revoked = await postForm(h.url, `/app/keys/${id}/revoke`, o.cookie, { _csrf: formToken(list.text) });
    expect([revoked.status, revoked.headers.get('location')]).toEqual([303, '/app/keys']);
    expect((await call(h.url, '/v1/account', { key: made.key })).status).toBe(401);
    expect((await call(h.url, '/v1/account', { key: access })).status).toBe(401);
    const shown = await page('/app/keys', `${o.cookie}; ${revoked.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ')}`);
    expect(shown.text).toContain('is revoked');
    expect(shown.text).not.toContain(`action="/app/keys/${id}/revoke"`);
  });

  it('of another account is not found, and nothing is revoked', async () => {
    const o = await owner();
    const other = await owner();
    const theirs = (await listApiKeys(h.db, other.account._id))[0]!;
    const list = await page('/app/keys', o.cookie);
    for (const target of [theirs._id, theirs.prefix]) {
      const res = await postForm(h.url, `/app/keys/${encodeURIComponent(target)}/revoke`, o.cookie, { _csrf: formToken(list.text) });
      expect(res.status).toBe(404);
    }
    expect((await call(h.url, '/v1/account', { key: other.live })).status).toBe(200);
  });
});

describe('who may manage keys', () => {
  it('a member gets the 403 page, and their POSTs change nothing', async () => {
    const o = await owner();
    await addMember(h.db, o.account._id, 'member-keys@example.test', 'member', 'test');
    const cookie = await h.sessionCookie('member-keys@example.test', { accountId: o.account._id });
    const list = await page('/app/keys', cookie);
    expect(list.res.status).toBe(403);
    expect(list.text).toContain(`Only an owner of ${o.account.name} can do this.`);
    expect(list.text).not.toContain('href="/app/keys"');
    const home = await page('/app/', cookie);
    const made = await postForm(h.url, '/app/keys', cookie, { _csrf: formToken(home.text), once: 'y'.repeat(24), name: 'sneaky', mode: 'live' });
    expect(made.status).toBe(403);
    const id = (await listApiKeys(h.db, o.account._id))[0]!._id;
    const revoked = await postForm(h.url, `/app/keys/${id}/revoke`, cookie, { _csrf: formToken(home.text) });
    expect(revoked.status).toBe(403);
    expect((await listApiKeys(h.db, o.account._id)).map((k) => k.revoked_at)).toEqual([null, null]);
    expect((await call(h.url, '/v1/account', { key: o.live })).status).toBe(200);
  });

  it('signed out: the page sends to sign-in', async () => {
    expect((await page('/app/keys', '')).res.headers.get('location')).toBe('/app/sign-in?next=%2Fapp%2Fkeys');
  });
});
