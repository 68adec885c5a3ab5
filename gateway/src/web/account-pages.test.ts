import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COLLECTIONS, type JobDoc } from '@dv/contracts';
import { addMember, findPersonByEmail, getAccount, listMembers, MAX_MEMBERS_PER_ACCOUNT, type Account, type LedgerEntry } from '@dv/accounts';
import { call } from '../testing/harness.ts';
import { formToken, postForm, startConsoleHarness, withCookies, type ConsoleHarness } from '../testing/console.ts';
import { firstJobIdAt, monthStart, nextMonthStart } from './usage.ts';

// The account, plan and members pages over HTTP: the figures they show and where they come from,
// the webhook secret (owners only, hidden until asked, rotated for the API at once), invitations
// by mail, the member limit and the last owner in words, and a member's POSTs refused with 403.

const PRICING = 'https://pricing.example.test/plans';
let h: ConsoleHarness;

beforeAll(async () => {
  h = await startConsoleHarness({ label: 'console_account', env: { UPGRADE_URL: PRICING } });
}, 120_000);

afterAll(async () => {
  await h?.close();
});

const page = (path: string, cookie?: string) => h.page(path, cookie);

/** POSTs a form of `from` and follows the redirect with the flash cookie; returns the first answer and the page after. */
async function submitForm(from: string, path: string, cookie: string, fields: Record<string, string>) {
  const form = await page(from, cookie);
  const res = await postForm(h.url, path, cookie, { _csrf: formToken(form.text), ...fields });
  const next = res.status === 303 ? await page(res.headers.get('location')!, withCookies(cookie, res)) : null;
  return { res, text: next ? next.text : await res.text() };
}

const DAY = 86_400_000;
const counts = (deliverable: number, undeliverable: number, risky: number, unknown: number) => ({ deliverable, undeliverable, risky, unknown });

async function insertJob(accountId: string, created: Date, c: JobDoc['counts'], mode: 'live' | 'sandbox' = 'live'): Promise<void> {
  const _id = `${firstJobIdAt(created)}${Math.random().toString(32).slice(2, 10).padEnd(16, '0')}`;
  const total = c.deliverable + c.undeliverable + c.risky + c.unknown;
  await h.db.collection<JobDoc>(COLLECTIONS.jobs.name).insertOne({ _id, account_id: accountId, key_id: 'test', mode, kind: 'list', status: 'completed', label: null, total, done: total, counts: c, credits_charged: 0, credits_refunded: 0, created_at: created, updated_at: created, completed_at: created, expires_at: new Date(Date.now() + 30 * DAY) } as unknown as JobDoc);
}

async function ledger(accountId: string, entries: [string, number, LedgerEntry['reason'], Date][]): Promise<void> {
  await h.db.collection<LedgerEntry>(COLLECTIONS.creditLedger.name).insertMany(entries.map(([id, delta, reason, at]) => ({ _id: `${id}:${accountId}`, account_id: accountId, delta, reason, note: null, at })));
}

describe('the account page', () => {
  it('shows the figures of GET /v1/account, this month\'s use from the ledger and 30 days of results by day and status', async () => {
    const t = await h.account({ plan: 'business', credits: 1234 });
    const id = t.account._id;
    const now = new Date();
    await ledger(id, [
      ['charge:a', -50, 'charge', now],
      ['refund:a', 10, 'refund', now],
      ['grant:a', 1000, 'grant', now],
      ['charge:old', -999, 'charge', new Date(monthStart(now).getTime() - DAY)],
    ]);
    const twoDaysAgo = new Date(now.getTime() - 2 * DAY);
    await insertJob(id, twoDaysAgo, counts(7, 3, 2, 1));
    await insertJob(id, twoDaysAgo, counts(1, 0, 0, 0));
    await insertJob(id, twoDaysAgo, counts(500, 0, 0, 0), 'sandbox');
    await insertJob(id, new Date(now.getTime() - 40 * DAY), counts(900, 0, 0, 0));
    const cookie = await h.sessionCookie(t.account.email);
    const { res, text } = await page('/app/account', cookie);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(text).toContain(`<h1>${t.account.name}</h1>`);
    expect(text).toContain('<a href="/app/plan">business</a>');
    expect(text).toContain('<strong>1,234</strong>');
    expect(text).toMatch(/<dt>Used this month<\/dt><dd>40 /);
    expect(text).toContain('Credits on a paid plan do not expire');
    expect(text).toContain('0 of 10,000 addresses');
    expect(text).toContain(`Completion emails go to</dt><dd>${t.account.email}</dd>`);
    // Business has API access: its API limits, no "no API access".
    expect(text).toContain('120 requests a minute per key');
    expect(text).not.toContain('No API access on this plan');
    // The chart's table: the two live jobs of two days ago in one row; sandbox and older jobs left out.
    const day = twoDaysAgo.toISOString().slice(5, 10);
    expect(text).toContain(`<tr><th scope="row">${day}</th><td class="num">8</td><td class="num">3</td><td class="num">2</td><td class="num">1</td><td class="num">14</td></tr>`);
    expect(text).toContain('14 live results');
    expect((text.match(/<th scope="row">/g) ?? []).length).toBe(30);
  });

  it('says when a Free account is topped up and that it has no API access', async () => {
    const cookie = await h.sessionCookie('free-owner@example.test');
    const { text } = await page('/app/account', cookie);
    expect(text).toContain(`Topped up to 100 credits on ${nextMonthStart(new Date()).toISOString().slice(0, 10)}`);
    expect(text).toContain('No API access on this plan');
    expect(text).toContain('0 of 500 addresses');
  });

  it('keeps the webhook secret hidden until asked, for owners only, and rotates it for the API at once', async () => {
    const t = await h.account({ plan: 'pro' });
    const secret = t.account.webhook_secret;
    const owner = await h.sessionCookie(t.account.email);
    expect((await page('/app/account', owner)).text).not.toContain(secret);
    const shown = await page('/app/account?reveal=webhook-secret', owner);
    expect(shown.text).toContain(secret);
    expect(shown.text).toContain('hex HMAC-SHA256, keyed with this secret');
    expect(shown.text).toContain('data-confirm="Rotate the webhook secret?');
    // The API caches the account: read it once so the rotation must reach the cache.
    expect((await call(h.url, '/v1/account', { key: t.live })).body.webhook_secret).toBe(secret);
    const rotated = await submitForm('/app/account', '/app/account', owner, {});
    expect([rotated.res.status, rotated.res.headers.get('location')]).toEqual([303, '/app/account?reveal=webhook-secret#webhook']);
    const fresh = (await getAccount(h.db, t.account._id)).webhook_secret;
    expect(fresh).toMatch(/^whsec_/);
    expect(fresh).not.toBe(secret);
    expect(rotated.text).toContain('The webhook secret was rotated');
    expect(rotated.text).toContain(fresh);
    expect((await call(h.url, '/v1/account', { key: t.live })).body.webhook_secret).toBe(fresh);

    await addMember(h.db, t.account._id, 'just-a-member@example.test', 'member', 'test');
    const member = await h.sessionCookie('just-a-member@example.test', { accountId: t.account._id });
    const asMember = await page('/app/account?reveal=webhook-secret', member);
    expect(asMember.res.status).toBe(200);
    expect(asMember.text).not.toContain(fresh);
    expect(asMember.text).toContain('Only an owner of the account sees and rotates the webhook secret.');
    const refused = await postForm(h.url, '/app/account', member, { _csrf: formToken(asMember.text) });
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain('Not allowed');
    expect((await getAccount(h.db, t.account._id)).webhook_secret).toBe(fresh);
  });

  it('shows a hostile account name as text', async () => {
    const t = await h.account();
    const evil = '<script>alert(1)</script><img src=x onerror=alert(2)>';
    await h.db.collection<Account>(COLLECTIONS.accounts.name).updateOne({ _id: t.account._id }, { $set: { name: evil } });
    const cookie = await h.sessionCookie(t.account.email);
    for (const path of ['/app/account', '/app/plan', '/app/members']) {
      const { text } = await page(path, cookie);
      expect(text).not.toContain('<script>alert(1)');
      expect(text).not.toContain('<img src=x');
      expect(text).toContain('&lt;script>alert(1)&lt;/script>&lt;img src=x onerror=alert(2)>');
    }
  });
});

describe('the plan page', () => {
  it('lists every plan with what it gives, marks the current one and says how to move and reactivate', async () => {
    const t = await h.account({ plan: 'growth', status: 'inactive' });
    const cookie = await h.sessionCookie(t.account.email);
    const { res, text } = await page('/app/plan', cookie);
    expect(res.status).toBe(200);
    for (const name of ['free', 'starter', 'growth', 'pro', 'business', 'enterprise']) expect(text).toContain(`<strong>${name}</strong>`);
    expect(text).toContain('<strong>growth</strong> <span class="badge badge-ok">your plan</span>');
    expect((text.match(/your plan</g) ?? []).length).toBe(1);
    expect(text).toContain('Yes: 240 requests a minute, 20,000 addresses a day');
    expect(text).toContain(`npm run admin -- account:plan --account ${t.account._id} --plan PLAN`);
    expect(text).toContain(`npm run admin -- account:status --account ${t.account._id} --status active`);
    expect(text).toContain('write to your account manager');
    expect(text).toContain('is inactive now');
  });

  it('is where the API sends a plan without access, unless UPGRADE_URL names another page', async () => {
    const t = await h.account({ plan: 'growth' });
    const r = await call(h.url, '/v1/verify', { key: t.live, body: { email: 'x@example.com' } });
    expect(r.status).toBe(403);
    expect(r.body.upgrade_url).toBe(PRICING);
  });
});

describe('the members page', () => {
  it('lets an owner invite by email: added at once, mailed a link that opens this account', async () => {
    const t = await h.account();
    const owner = await h.sessionCookie(t.account.email);
    const since = h.relay.inbox.length;
    const sent = await submitForm('/app/members', '/app/members', owner, { email: 'Invited@Example.test', role: 'member' });
    expect(sent.res.status).toBe(303);
    expect(sent.text).toContain('invited@example.test was added as member. We emailed invited@example.test a sign-in link.');
    expect(sent.text).toContain('<td>invited@example.test</td><td>member</td>');
    expect(sent.text).toContain('<td>never</td>');
    const link = await h.mailedLink('invited@example.test', since);
    const mail = h.relay.inbox.slice(since).find((m) => m.to.includes('invited@example.test'))!;
    expect(mail.decoded).toContain(`${t.account.email} added you to the account`);
    const linkPage = await page(link.slice(h.url.length), '');
    const used = await postForm(h.url, '/app/sign-in/link', '', { _csrf: formToken(linkPage.text), token: /name="token" value="([^"]+)"/.exec(linkPage.text)![1]! });
    expect(used.status).toBe(403); // no anonymous cookie: the CSRF token is bound to one
    const form = await fetch(`${h.url}/app/sign-in`);
    const jar = withCookies('', form);
    const linkPage2 = await page(link.slice(h.url.length), jar);
    const used2 = await postForm(h.url, '/app/sign-in/link', jar, { _csrf: formToken(linkPage2.text), token: /name="token" value="([^"]+)"/.exec(linkPage2.text)![1]! });
    expect(used2.status).toBe(303);
    const home = await page('/app/', withCookies(jar, used2));
    expect(home.text).toContain(`<h1>${t.account.name}</h1>`);

    const again = await submitForm('/app/members', '/app/members', owner, { email: 'invited@example.test', role: 'owner' });
    expect(again.text).toContain(`invited@example.test is already in ${t.account.name}; nothing changed.`);
    // Invitations count with the address's sign-in links of the day.
    const limit = h.ctx.config.SIGN_IN_LINKS_PER_EMAIL_PER_DAY;
    expect((await h.console.linksPerEmail.take('flooded@example.test', limit, limit)).allowed).toBe(true);
    const before = h.relay.inbox.length;
    const flooded = await submitForm('/app/members', '/app/members', owner, { email: 'flooded@example.test', role: 'member' });
    expect(flooded.text).toContain(`flooded@example.test was added as member. No email was sent: flooded@example.test has had ${limit} sign-in links today.`);
    await new Promise((r) => setTimeout(r, 300));
    expect(h.relay.inbox.slice(before).filter((m) => m.to.includes('flooded@example.test'))).toEqual([]);
    const bad = await submitForm('/app/members', '/app/members', owner, { email: 'not an address', role: 'member' });
    expect(bad.res.status).toBe(400);
    expect(bad.text).toContain('Enter an email address such as someone@example.com.');
  });

  it('says the member limit and the last owner in words', async () => {
    const t = await h.account();
    const owner = await h.sessionCookie(t.account.email);
    const me = (await findPersonByEmail(h.db, t.account.email))!;
    const lastOwner = await submitForm('/app/members', '/app/members/remove', owner, { person: me._id });
    expect(lastOwner.text).toContain('The last owner cannot be removed');
    const demoted = await submitForm('/app/members', '/app/members/role', owner, { person: me._id, role: 'member' });
    expect(demoted.text).toContain('The last owner stays an owner');
    expect(await listMembers(h.db, t.account._id)).toHaveLength(1);
    for (let i = 1; i < MAX_MEMBERS_PER_ACCOUNT; i++) await addMember(h.db, t.account._id, `crowd${i}@example.test`, 'member', me._id);
    const full = await submitForm('/app/members', '/app/members', owner, { email: 'one-too-many@example.test', role: 'member' });
    expect(full.res.status).toBe(400);
    expect(full.text).toContain(`already has ${MAX_MEMBERS_PER_ACCOUNT} people, the most an account holds. Remove someone first.`);
    expect(full.text).toContain('25 people of at most 25');
    const crowd1 = (await findPersonByEmail(h.db, 'crowd1@example.test'))!;
    const removed = await submitForm('/app/members', '/app/members/remove', owner, { person: crowd1._id });
    expect(removed.res.status).toBe(303);
    expect(removed.text).toContain('Removed from the account.');
    expect((await listMembers(h.db, t.account._id)).map((m) => m.person.email)).not.toContain('crowd1@example.test');
    const crowd2 = (await findPersonByEmail(h.db, 'crowd2@example.test'))!;
    const promoted = await submitForm('/app/members', '/app/members/role', owner, { person: crowd2._id, role: 'owner' });
    expect(promoted.text).toContain('Role changed to owner.');
    expect(promoted.text).toContain('<td>crowd2@example.test</td><td>owner</td>');
    const stepDown = await submitForm('/app/members', '/app/members/role', owner, { person: me._id, role: 'member' });
    expect(stepDown.text).toContain('Role changed to member.');
    expect((await listMembers(h.db, t.account._id)).find((m) => m.person._id === me._id)?.membership.role).toBe('member');
  });

  it('shows a member the list without forms, and refuses a member\'s owner actions with 403', async () => {
    const t = await h.account();
    await h.sessionCookie(t.account.email); // its address signs in: the account's owner
    await addMember(h.db, t.account._id, 'plain-member@example.test', 'member', 'test');
    const member = await h.sessionCookie('plain-member@example.test', { accountId: t.account._id });
    const { res, text } = await page('/app/members', member);
    expect(res.status).toBe(200);
    expect(text).toContain(`<td>${t.account.email}</td><td>owner</td>`);
    expect(text).not.toContain('Invite someone');
    expect(text).not.toContain('/app/members/remove');
    expect(text).not.toContain('/app/members/role');
    expect(text).toContain('Only an owner invites and removes people.');
    const ownerId = (await findPersonByEmail(h.db, t.account.email))!._id;
    for (const [path, fields] of [['/app/members', { email: 'sneaky@example.test', role: 'owner' }], ['/app/members/remove', { person: ownerId }], ['/app/members/role', { person: ownerId, role: 'member' }]] as const) {
      const r = await postForm(h.url, path, member, { _csrf: formToken(text), ...fields });
      expect(r.status).toBe(403);
      expect(await r.text()).toContain(`Only an owner of ${t.account.name} can do this.`);
    }
    expect((await listMembers(h.db, t.account._id)).map((m) => `${m.person.email} ${m.membership.role}`).sort()).toEqual([`${t.account.email} owner`, 'plain-member@example.test member'].sort());
  });
});
