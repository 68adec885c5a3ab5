import { membershipsOf, noteSignIn, signUp, findOrCreatePerson } from '@dv/accounts';
import { html, postForm, submit } from '@dv/web';
import type { ConsoleContext, SignInLink } from '../context.ts';
import { definePage, PageError } from '../page.ts';
import { startSession } from '../viewer.ts';
import { safeNext } from './sign-in.ts';

// GET /app/sign-in/link?token=…: the emailed link. Mail scanners open links, so the GET only looks
// at the token and shows a button; the button's POST uses it up (one GETDEL: of two racing uses,
// one wins) and starts a new session. A first sign-in of a new address makes its Free account; an
// address someone added as a member signs in to that account without getting one of its own.

const usedOrExpired = () => new PageError(410, 'This link no longer works', 'Sign-in links work once and for a short time. This one was used already or has expired. Ask for a new one on the sign-in page.');

export const signInLinkPage = definePage({
  method: 'get',
  path: '/sign-in/link',
  access: 'anyone',
  handle: async ({ cc, req, csrf }) => {
    const token = typeof req.query.token === 'string' ? req.query.token : '';
    const link = await cc.links.peek(token);
    if (!link) throw usedOrExpired();
    return {
      title: 'Sign in',
      noindex: true,
      body: html`<h1>Sign in as ${link.email}</h1>
        <p class="lead">Press the button to sign in on this browser.</p>
        ${postForm('/app/sign-in/link', csrf(), html`<input type="hidden" name="token" value=${token} />${submit('Sign in')}`, { label: 'Confirm sign-in' })}`,
    };
  },
});

/** The account a new session opens: the invitation's, else the person's own, else their first. */
async function accountFor(cc: ConsoleContext, link: SignInLink): Promise<{ personId: string; accountId: string }> {
  const person = await findOrCreatePerson(cc.api.db, link.email);
  let all = await membershipsOf(cc.api.db, person._id);
  if (all.length === 0) {
    await signUp(cc.api.db, link.email);
    all = await membershipsOf(cc.api.db, person._id);
  }
  const pick = all.find((m) => m.account._id === link.accountId) ?? all.find((m) => m.membership.role === 'owner') ?? all[0];
  if (!pick) throw new PageError(500, 'No account', 'Your account could not be found. Try signing in again.');
  return { personId: person._id, accountId: pick.account._id };
}

export const signInLinkUse = definePage({
  method: 'post',
  path: '/sign-in/link',
  access: 'anyone',
  handle: async ({ cc, req, res }) => {
    const token = (req.body as Record<string, unknown>).token;
    const link = await cc.links.take(typeof token === 'string' ? token : '');
    if (!link) throw usedOrExpired();
    const { personId, accountId } = await accountFor(cc, link);
    await startSession(cc, req, res, personId, { email: link.email, accountId });
    await noteSignIn(cc.api.db, personId);
    return { redirect: safeNext(link.next), flash: { kind: 'ok', text: `Signed in as ${link.email}.` } };
  },
});
