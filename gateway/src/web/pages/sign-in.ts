import { normalizeEmail } from '@dv/accounts';
import { FREE_PLAN_MONTHLY_CREDITS } from '@dv/contracts';
import { field, html, postForm, submit } from '@dv/web';
import { signInLinkUrl } from '../links.ts';
import { definePage, PageError, type PageCall } from '../page.ts';
import type { Viewer } from '../viewer.ts';

// GET /app/sign-in: one field, an email address; POST mails a one-time link (sign-in and sign-up
// are one flow: a new address gets a Free account when its link is used). The answer is the same
// whether or not the address is known, so the form tells no one who has an account. Limited per
// address and per client IP per UTC day.

/** Where to go after signing in: a console path only, never another site. */
export function safeNext(raw: unknown): string {
  return typeof raw === 'string' && raw.startsWith('/app/') && !raw.startsWith('/app//') && !raw.includes('\\') && raw.length <= 500 ? raw : '/app/';
}

function form(call: PageCall<Viewer | null>, value: string, error?: string, next = '/app/') {
  return html`<h1>Sign in or sign up</h1>
    <p class="lead">No password: we email you a link that signs you in. A new address gets a Free account with ${FREE_PLAN_MONTHLY_CREDITS} credits a month to try the console.</p>
    ${postForm(
      '/app/sign-in',
      call.csrf(),
      html`${field({ name: 'email', label: 'Email address', type: 'email', value, error, required: true, autocomplete: 'email' })}
        <input type="hidden" name="next" value=${next} />
        ${submit('Email me a sign-in link')}`,
      { label: 'Sign in' },
    )}`;
}

export const signInPage = definePage({
  method: 'get',
  path: '/sign-in',
  access: 'anyone',
  handle: async (call) => {
    if (call.viewer) return { redirect: safeNext(call.req.query.next) };
    return { title: 'Sign in', body: form(call, '', undefined, safeNext(call.req.query.next)) };
  },
});

async function takeLimits(call: PageCall<Viewer | null>, email: string): Promise<void> {
  const { cc, req } = call;
  const c = cc.api.config;
  const perIp = await cc.linksPerIp.take(req.ip ?? 'unknown', c.SIGN_IN_LINKS_PER_IP_PER_DAY);
  const perEmail = perIp.allowed ? await cc.linksPerEmail.take(email, c.SIGN_IN_LINKS_PER_EMAIL_PER_DAY) : null;
  if (perIp.allowed && perEmail?.allowed) return;
  await perIp.refund();
  const which = perIp.allowed ? `${c.SIGN_IN_LINKS_PER_EMAIL_PER_DAY} sign-in links a day for one address` : `${c.SIGN_IN_LINKS_PER_IP_PER_DAY} sign-in links a day from one network address`;
  throw new PageError(429, 'Too many sign-in links', `At most ${which}. Use the newest link in your inbox (look in the spam folder too), or try again after 00:00 UTC.`);
}

export const signInSend = definePage({
  method: 'post',
  path: '/sign-in',
  access: 'anyone',
  handle: async (call) => {
    const { cc, req } = call;
    const body = req.body as Record<string, unknown>;
    const raw = typeof body.email === 'string' ? body.email : '';
    const email = normalizeEmail(raw);
    const next = safeNext(body.next);
    if (!email) return { title: 'Sign in', status: 400, body: form(call, raw.slice(0, 254), 'Enter an email address such as you@example.com.', next) };
    if (!cc.mailer) throw new PageError(503, 'Email is not set up', 'This deployment has no mail relay (SMTP_RELAY_URL), so it cannot send sign-in links. Ask its operator.');
    await takeLimits(call, email);
    const ttlMs = cc.api.config.SIGN_IN_LINK_TTL_MINUTES * 60_000;
    const token = await cc.links.issue({ email, next }, ttlMs);
    try {
      await cc.mailer.sendSignIn({ to: email, link: signInLinkUrl(cc.baseUrl, token), expiresAt: new Date(Date.now() + ttlMs) });
    } catch (err) {
      cc.api.log.error({ err: (err as Error).message }, 'could not send a sign-in email');
      throw new PageError(503, 'The email could not be sent', 'Our mail relay did not take the message. Try again in a minute.');
    }
    return {
      title: 'Check your inbox',
      body: html`<h1>Check your inbox</h1>
        <p class="lead" role="status">We sent a sign-in link to <strong>${email}</strong>. It works once, for ${cc.api.config.SIGN_IN_LINK_TTL_MINUTES} minutes.</p>
        <p>Nothing there? Look in the spam folder, or <a href="/app/sign-in">ask for another link</a>.</p>`,
    };
  },
});
