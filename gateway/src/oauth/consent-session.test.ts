import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, createApiKey, revokeApiKey } from '@dv/accounts';
import { oauthFlow, pkce, sealedFrom } from '@dv/oauth/testing';
import { call } from '../testing/harness.ts';
import { startConsoleHarness, type ConsoleHarness } from '../testing/console.ts';

// "Approve as <person> with key <name>" on the connector's consent page, over HTTP: a person
// signed in to the console approves with a chosen key of their account, and the token acts as that
// key; the server checks the session, the page's binding to it, the origin and the key again at
// the POST, so a forged key id, a member, a page of another session or another site approve
// nothing. Without a session the page is today's: a pasted key only.

let h: ConsoleHarness;
const flow = oauthFlow(() => h.url);

beforeAll(async () => {
  h = await startConsoleHarness({ label: 'consent_session', env: { OAUTH_REGISTRATIONS_PER_HOUR: '1000' } });
}, 120_000);

afterAll(async () => {
  await h?.close();
});

/** The consent page of a new client, as the browser with `cookie` sees it. */
async function consent(cookie = '') {
  const clientId = (await flow.register()).body.client_id!;
  const { verifier, challenge } = pkce();
  const res = await fetch(flow.authorizeUrl(clientId, challenge), { headers: { cookie }, redirect: 'manual' });
  const html = await res.text();
  return { clientId, verifier, html, sealed: html.includes('name="request"') ? sealedFrom(html) : '' };
}

const approveAs = (cookie: string, sealed: string, keyId: string, headers: Record<string, string> = { 'sec-fetch-site': 'same-origin' }) =>
  flow.post('/oauth/authorize', { request: sealed, key_id: keyId, decision: 'approve' }, { cookie, ...headers });

async function owner(plan: 'pro' | 'free' = 'pro') {
  const a = await h.account({ plan });
  return { ...a, cookie: await h.sessionCookie(a.account.email) };
}

describe('approving as the signed-in person', () => {
  it('without a session shows only the paste form, as before', async () => {
    const c = await consent();
    expect(c.html).toContain('id="api_key"');
    expect(c.html).not.toContain('Signed in as');
    expect(c.html).not.toContain('name="key_id"');
  });

  it("offers an owner the account's active keys of the console's mode; the chosen one is the token's key", async () => {
    const o = await owner();
    const second = await createApiKey(h.db, o.account._id, 'Agent <i>key</i>', 'live');
    const gone = await createApiKey(h.db, o.account._id, 'revoked one', 'live');
    await revokeApiKey(h.db, gone.record._id, o.account._id);
    const c = await consent(o.cookie);
    expect(c.html).toContain(`Signed in as ${o.account.email}`);
    expect(c.html).toContain('Agent &lt;i>key&lt;/i>');
    expect(c.html).not.toContain('revoked one');
    expect(c.html).not.toContain('>sandbox (');
    expect(c.html).toContain(`<option value="${second.record._id}" selected>`);
    expect(c.html).toContain('id="api_key"');
    const res = await approveAs(o.cookie, c.sealed, second.record._id);
    expect(res.status).toBe(303);
    const code = new URL(res.headers.get('location')!).searchParams.get('code')!;
    const token = await flow.token({ grant_type: 'authorization_code', client_id: c.clientId, code, code_verifier: c.verifier });
    expect(token.status).toBe(200);
    const me = await call(h.url, '/v1/account', { key: token.body.access_token! });
    expect([me.status, me.body.key.id, me.body.account.id]).toEqual([200, second.record._id, o.account._id]);
  });

  it("refuses another account's key id, a revoked key and a key of the other mode, approving nothing", async () => {
    const o = await owner();
    const other = await owner();
    const theirs = await createApiKey(h.db, other.account._id, 'theirs', 'live');
    const gone = await createApiKey(h.db, o.account._id, 'gone', 'live');
    await revokeApiKey(h.db, gone.record._id, o.account._id);
    const sandbox = await createApiKey(h.db, o.account._id, 'sandboxed', 'sandbox');
    const c = await consent(o.cookie);
    for (const id of [theirs.record._id, gone.record._id, 'key_nope']) {
      const res = await approveAs(o.cookie, c.sealed, id);
      expect(res.status).toBe(400);
      expect(await res.text()).toContain('not an active key of this account');
    }
    const wrongMode = await approveAs(o.cookie, c.sealed, sandbox.record._id);
    expect(wrongMode.status).toBe(400);
    expect(await wrongMode.text()).toContain('the console is in live mode');
  });

  it('tells a member that an owner must approve, and refuses their POST', async () => {
    const o = await owner();
    await addMember(h.db, o.account._id, 'consent-member@example.test', 'member', 'test');
    const cookie = await h.sessionCookie('consent-member@example.test', { accountId: o.account._id });
    const c = await consent(cookie);
    expect(c.html).toContain('Only an owner of the account can approve with its keys');
    expect(c.html).not.toContain('name="key_id"');
    const keyId = (await call(h.url, '/v1/account', { key: o.live })).body.key.id as string;
    const res = await approveAs(cookie, c.sealed, keyId);
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('Only an owner');
  });

  it('needs the session the page was shown to, from this origin', async () => {
    const o = await owner();
    const keyId = (await call(h.url, '/v1/account', { key: o.live })).body.key.id as string;
    const shown = await consent(o.cookie);
    // Signed out since: nothing approved.
    const none = await approveAs('', shown.sealed, keyId);
    expect([none.status, (await none.text()).includes('no longer signed in')]).toEqual([401, true]);
    // A page shown without a session (an attacker's own), sent with the person's cookie.
    const anon = await consent();
    const forged = await approveAs(o.cookie, anon.sealed, keyId);
    expect([forged.status, (await forged.text()).includes('opened in another session')]).toEqual([403, true]);
    // Another session of the same person.
    const otherSession = await h.sessionCookie(o.account.email);
    expect((await approveAs(otherSession, shown.sealed, keyId)).status).toBe(403);
    // From another site.
    const cross = await approveAs(o.cookie, shown.sealed, keyId, { 'sec-fetch-site': 'cross-site' });
    expect(cross.status).toBe(403);
    expect((await approveAs(o.cookie, shown.sealed, keyId)).status).toBe(303);
  });

  it('on a plan without API access says why no key is offered', async () => {
    const o = await owner('free');
    const c = await consent(o.cookie);
    expect(c.html).toContain('plan of');
    expect(c.html).toContain('has no API access');
    expect(c.html).not.toContain('name="key_id"');
  });

  it('keeps the paste form working for a signed-in person', async () => {
    const o = await owner();
    const c = await consent(o.cookie);
    const res = await flow.post('/oauth/authorize', { request: c.sealed, api_key: o.live, decision: 'approve' }, { cookie: o.cookie });
    expect(res.status).toBe(303);
    const wrong = await flow.post('/oauth/authorize', { request: c.sealed, api_key: 'not a key', decision: 'approve' }, { cookie: o.cookie });
    const text = await wrong.text();
    expect(text).toContain('starts with dv_live_');
    expect(text).toContain('name="key_id"');
  });
});
