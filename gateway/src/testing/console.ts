import type { Page } from 'playwright-core';
import { findOrCreatePerson, membershipsOf, signUp } from '@dv/accounts';
import { startCaptureRelay, type CaptureRelay } from '@dv/notify/testing';
import { until } from '@dv/test-kit';
import { startGatewayHarness, type GatewayHarness } from './harness.ts';

// The console under test: the gateway harness at its real address (links in mails must reach it)
// with a capturing SMTP relay, and the ways a test signs a person in: by the whole emailed-link
// flow over HTTP (signInCookie), the same in a browser (signInBrowser), or, when the sign-in itself
// is not what is tested, by starting a session directly (sessionCookie).

export interface ConsoleHarness extends GatewayHarness {
  relay: CaptureRelay;
  /** Waits for the newest sign-in link mailed to `email` after `since` mails had arrived. */
  mailedLink(email: string, since: number): Promise<string>;
  /** The emailed-link flow over HTTP; returns the Cookie header of the signed-in browser. */
  signInCookie(email: string): Promise<string>;
  /** A session for the person of `email` (signed up on first use) without the mail. */
  sessionCookie(email: string, opts?: { accountId?: string; sandbox?: boolean }): Promise<string>;
  /** The emailed-link flow in a browser page. */
  signInBrowser(page: Page, email: string): Promise<void>;
  /** A GET as the browser with `cookie` sends it, redirects not followed; the answer and its text. */
  page(path: string, cookie?: string): Promise<{ res: Response; status: number; text: string }>;
}

export const formToken = (page: string): string => /name="_csrf" value="([^"]+)"/.exec(page)?.[1] ?? '';

/** Cookies a response sets, as a Cookie header merged over `jar`. */
export function withCookies(jar: string, res: Response): string {
  const map = new Map(jar ? jar.split('; ').map((c) => c.split('=') as [string, string]) : []);
  for (const line of res.headers.getSetCookie()) {
    const [pair] = line.split(';');
    const [name, ...rest] = pair!.split('=');
    map.set(name!, rest.join('='));
  }
  return [...map].filter(([, v]) => v !== '').map(([k, v]) => `${k}=${v}`).join('; ');
}

/** Markup that would run if a page let it through: labels, CSV cells and errors carry it in tests. */
export const EVIL = '<img src=x onerror=alert(1)><script>alert(2)</script>';

/** A list uploaded as POST /v1/jobs does it (multipart, the CSV's own columns kept as meta); its job id. */
export async function uploadJob(base: string, key: string, csv: string, label: string): Promise<string> {
  const form = new FormData();
  form.append('email_column', 'email');
  form.append('label', label);
  form.append('file', new Blob([csv]), 'list.csv');
  const res = await fetch(`${base}/v1/jobs`, { method: 'POST', body: form, headers: { authorization: `Bearer ${key}` } });
  const body = (await res.json()) as { job_id: string };
  if (res.status !== 202) throw new Error(`upload answered ${res.status}: ${JSON.stringify(body)}`);
  return body.job_id;
}

/** A form POST from a page of this origin, as a browser sends it. */
export function postForm(base: string, path: string, cookie: string, fields: Record<string, string>): Promise<Response> {
  return fetch(`${base}${path}`, { method: 'POST', redirect: 'manual', headers: { cookie, origin: base, 'sec-fetch-site': 'same-origin', 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() });
}

export async function startConsoleHarness(opts: { label: string; scheduler?: boolean; env?: Record<string, string> }): Promise<ConsoleHarness> {
  const relay = await startCaptureRelay();
  const gw = await startGatewayHarness({ label: opts.label, scheduler: opts.scheduler, realBaseUrl: true, env: { SMTP_RELAY_URL: relay.url, ...opts.env } });
  const mailedLink = async (email: string, since: number): Promise<string> => {
    await until(() => relay.inbox.slice(since).some((m) => m.to.includes(email)), 10_000, `a sign-in mail to ${email}`);
    const mail = relay.inbox.slice(since).reverse().find((m) => m.to.includes(email))!;
    return /(http:\/\/[^\s"<>]+\/app\/sign-in\/link\?token=[A-Za-z0-9_-]+)/.exec(mail.decoded)![1]!;
  };
  const signInCookie = async (email: string): Promise<string> => {
    const form = await fetch(`${gw.url}/app/sign-in`);
    let jar = withCookies('', form);
    const since = relay.inbox.length;
    const sent = await postForm(gw.url, '/app/sign-in', jar, { _csrf: formToken(await form.text()), email });
    if (sent.status !== 200) throw new Error(`sign-in request answered ${sent.status}`);
    const linkPage = await fetch(await mailedLink(email, since), { headers: { cookie: jar } });
    const token = /name="token" value="([^"]+)"/.exec(await linkPage.text())![1]!;
    const used = await postForm(gw.url, '/app/sign-in/link', jar, { _csrf: formToken(await (await fetch(`${gw.url}/app/sign-in`, { headers: { cookie: jar } })).text()), token });
    jar = withCookies(jar, used);
    if (used.status !== 303) throw new Error(`sign-in link answered ${used.status}`);
    return jar;
  };
  const sessionCookie = async (email: string, o: { accountId?: string; sandbox?: boolean } = {}): Promise<string> => {
    const person = await findOrCreatePerson(gw.db, email);
    if ((await membershipsOf(gw.db, person._id)).length === 0) await signUp(gw.db, email);
    const all = await membershipsOf(gw.db, person._id);
    const accountId = o.accountId ?? all.find((m) => m.membership.role === 'owner')?.account._id ?? all[0]!.account._id;
    const s = await gw.console.sessions.create(person._id, { email: person.email, accountId, sandbox: o.sandbox });
    return `dv_console=${s.id}`;
  };
  const signInBrowser = async (page: Page, email: string): Promise<void> => {
    await page.goto(`${gw.url}/app/sign-in`);
    await page.getByLabel('Email address').fill(email);
    const since = relay.inbox.length;
    await page.getByRole('button', { name: 'Email me a sign-in link' }).click();
    await page.getByText('Check your inbox').first().waitFor();
    await page.goto(await mailedLink(email, since));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/app\/(?!sign-in)/);
  };
  const page = async (path: string, cookie = '') => {
    const res = await fetch(`${gw.url}${path}`, { headers: { cookie }, redirect: 'manual' });
    return { res, status: res.status, text: await res.text() };
  };
  return {
    ...gw,
    page,
    relay,
    mailedLink,
    signInCookie,
    sessionCookie,
    signInBrowser,
    close: async () => {
      await gw.close();
      await relay.close();
    },
  };
}
