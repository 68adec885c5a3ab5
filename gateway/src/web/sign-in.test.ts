import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COLLECTIONS } from '@dv/contracts';
import { addMember, findPersonByEmail, membershipsOf, type Account } from '@dv/accounts';
import { formToken, postForm, startConsoleHarness, withCookies, type ConsoleHarness } from '../testing/console.ts';

// Sign-in by emailed link over HTTP: the GET of a link uses nothing, its POST signs in once; a new
// address gets a Free account; limits per address; CSRF; sign-out here and everywhere.

let h: ConsoleHarness;

beforeAll(async () => {
  h = await startConsoleHarness({ label: 'console_signin', env: { SIGN_IN_LINKS_PER_EMAIL_PER_DAY: '3' } });
}, 120_000);

afterAll(async () => {
  await h?.close();
});

const page = (path: string, cookie?: string) => h.page(path, cookie);

async function requestLink(email: string): Promise<{ jar: string; res: Response; text: string }> {
  const form = await fetch(`${h.url}/app/sign-in`);
  const jar = withCookies('', form);
  const res = await postForm(h.url, '/app/sign-in', jar, { _csrf: formToken(await form.text()), email });
  return { jar, res, text: await res.text() };
}

describe('sign-in by emailed link', () => {
  it('signs a new address up on a Free account with the allowance, and a GET of the link uses nothing', async () => {
    const since = h.relay.inbox.length;
    const { jar, res, text } = await requestLink('New.Person@Example.test');
    expect(res.status).toBe(200);
    expect(text).toContain('We sent a sign-in link to <strong>new.person@example.test</strong>');
    const link = await h.mailedLink('new.person@example.test', since);
    // A mail scanner's GETs: the link still works afterwards.
    for (let i = 0; i < 3; i++) expect((await page(link.slice(h.url.length), jar)).res.status).toBe(200);
    const linkPage = await page(link.slice(h.url.length), jar);
    expect(linkPage.res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(linkPage.text).toContain('<meta name="robots" content="noindex, nofollow"/>');
    const token = /name="token" value="([^"]+)"/.exec(linkPage.text)![1]!;
    const used = await postForm(h.url, '/app/sign-in/link', jar, { _csrf: formToken(linkPage.text), token });
    expect([used.status, used.headers.get('location')]).toEqual([303, '/app/']);
    const cookie = withCookies(jar, used);
    expect(cookie).toMatch(/dv_console=/);
    const home = await page('/app/', cookie);
    expect(home.res.status).toBe(200);
    expect(home.text).toContain('Signed in as new.person@example.test.');
    const person = (await findPersonByEmail(h.db, 'new.person@example.test'))!;
    const [mine] = await membershipsOf(h.db, person._id);
    expect(mine).toMatchObject({ membership: { role: 'owner' }, account: { plan: 'free', credits: 100 } });
    // The same link a second time: used up.
    const again = await postForm(h.url, '/app/sign-in/link', jar, { _csrf: formToken(linkPage.text), token });
    expect(again.status).toBe(410);
    expect(await again.text()).toContain('This link no longer works');
    expect((await page(link.slice(h.url.length))).res.status).toBe(410);
  });

  it('answers the same for a known and an unknown address, and refuses a malformed one in words', async () => {
    const known = await h.account();
    const a = await requestLink(known.account.email);
    const b = await requestLink('nobody-yet@example.test');
    expect([a.res.status, b.res.status]).toEqual([200, 200]);
    const bad = await requestLink('not an address<script>');
    expect(bad.res.status).toBe(400);
    expect(bad.text).toContain('Enter an email address such as you@example.com.');
    expect(bad.text).toContain('value="not an address&lt;script>"');
  });

  it('opens the account whose own address signs in, as its owner, without a Free account of its own', async () => {
    const made = await h.account({ plan: 'business' });
    const cookie = await h.signInCookie(made.account.email);
    const home = await page('/app/', cookie);
    expect(home.text).toContain(`<h1>${made.account.name}</h1>`);
    const free = await h.db.collection<Account>(COLLECTIONS.accounts.name).countDocuments({ email: made.account.email, plan: 'free' });
    expect(free).toBe(0);
  });

  it('limits links per address per day and says until when', async () => {
    const email = 'limited@example.test';
    for (let i = 0; i < 3; i++) expect((await requestLink(email)).res.status).toBe(200);
    const fourth = await requestLink(email);
    expect(fourth.res.status).toBe(429);
    expect(fourth.text).toContain('At most 3 sign-in links a day for one address');
  });

  it('refuses a form without its token or from another site, changing nothing', async () => {
    const form = await fetch(`${h.url}/app/sign-in`);
    const jar = withCookies('', form);
    const since = h.relay.inbox.length;
    const none = await postForm(h.url, '/app/sign-in', jar, { email: 'csrf@example.test' });
    expect(none.status).toBe(403);
    expect(await none.text()).toContain('the form was sent without its security token');
    const cross = await fetch(`${h.url}/app/sign-in`, { method: 'POST', headers: { cookie: jar, 'sec-fetch-site': 'cross-site', 'content-type': 'application/x-www-form-urlencoded' }, body: `_csrf=${formToken(await form.text())}&email=csrf@example.test` });
    expect(cross.status).toBe(403);
    expect(h.relay.inbox.length).toBe(since);
  });

  it('sends a page that needs a session to sign-in, and back to it afterwards', async () => {
    const res = await page('/app/?tab=1');
    expect([res.res.status, res.res.headers.get('location')]).toEqual([303, '/app/sign-in?next=%2Fapp%2F%3Ftab%3D1']);
    // Another site as "next" is ignored.
    const evil = await page('/app/sign-in?next=//evil.example/');
    expect(evil.text).toContain('name="next" value="/app/"');
  });
});

describe('sessions', () => {
  it('end on sign-out, and everywhere at once on "sign out everywhere"', async () => {
    const email = 'sessions@example.test';
    const one = await h.signInCookie(email);
    const two = await h.signInCookie(email);
    expect((await page('/app/', one)).res.status).toBe(200);
    const home = await page('/app/', two);
    const out = await postForm(h.url, '/app/sign-out-everywhere', two, { _csrf: formToken(home.text) });
    expect(out.status).toBe(303);
    expect((await page('/app/', one)).res.status).toBe(303);
    expect((await page('/app/', two)).res.status).toBe(303);
    const three = await h.signInCookie(email);
    const p3 = await page('/app/', three);
    expect((await postForm(h.url, '/app/sign-out', three, { _csrf: formToken(p3.text) })).status).toBe(303);
    expect((await page('/app/', three)).res.headers.get('location')).toMatch(/^\/app\/sign-in/);
  });

  it('follow membership: a person removed from the account is signed out of it at the next request', async () => {
    const owner = await h.account();
    await addMember(h.db, owner.account._id, 'leaver@example.test', 'member', 'test');
    const cookie = await h.sessionCookie('leaver@example.test', { accountId: owner.account._id });
    expect((await page('/app/', cookie)).text).toContain(`<h1>${owner.account.name}</h1>`);
    const person = (await findPersonByEmail(h.db, 'leaver@example.test'))!;
    await h.db.collection(COLLECTIONS.memberships.name).deleteMany({ person_id: person._id });
    expect((await page('/app/', cookie)).res.status).toBe(303);
  });

  it('switch between the accounts a person belongs to, never to another', async () => {
    const a = await h.account();
    const b = await h.account();
    for (const x of [a, b]) await addMember(h.db, x.account._id, 'two-hats@example.test', 'member', 'test');
    const cookie = await h.sessionCookie('two-hats@example.test', { accountId: a.account._id });
    const home = await page('/app/', cookie);
    expect(home.text).toContain('Switch account');
    const other = await h.account();
    const refused = await postForm(h.url, '/app/switch-account', cookie, { _csrf: formToken(home.text), account: other.account._id });
    expect(refused.status).toBe(404);
    const ok = await postForm(h.url, '/app/switch-account', cookie, { _csrf: formToken(home.text), account: b.account._id });
    expect(ok.status).toBe(303);
    expect((await page('/app/', cookie)).text).toContain(`<h1>${b.account.name}</h1>`);
  });

  it('leave the API untouched: an unknown /v1 path is still problem+json, an unknown /app path a page', async () => {
    const api = await fetch(`${h.url}/v1/nothing`);
    expect(api.headers.get('content-type')).toContain('application/problem+json');
    const p = await page('/app/nothing<b>');
    expect(p.res.status).toBe(404);
    expect(p.res.headers.get('content-type')).toContain('text/html');
    expect(p.text).not.toContain('<b>');
  });
});
