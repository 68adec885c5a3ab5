import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COLLECTIONS, itemId, type JobDoc, type JobItemDoc } from '@dv/contracts';
import { getAccount } from '@dv/accounts';
import { formToken, postForm, startConsoleHarness, type ConsoleHarness } from '../testing/console.ts';

// The check page over HTTP: one address checked as POST /v1/verify checks it (sandbox free and
// deterministic, live charged), the result with its decision and evidence, "still running" with a
// live region when the wait runs out, refusals (syntax, credits, rate) as pages in words, and a
// mail server's reply shown as text.

let h: ConsoleHarness;

beforeAll(async () => {
  h = await startConsoleHarness({ label: 'console_check', scheduler: true, env: { CONSOLE_CHECK_WAIT_SECONDS: '2' } });
}, 120_000);

afterAll(async () => {
  await h?.close();
});

const get = (path: string, cookie?: string) => h.page(path, cookie);

async function check(cookie: string, email: string): Promise<Response> {
  const form = await get('/app/check', cookie);
  return postForm(h.url, '/app/check', cookie, { _csrf: formToken(form.text), email });
}

async function checkOpened(cookie: string, email: string): Promise<{ jobId: string; text: string }> {
  const res = await check(cookie, email);
  expect(res.status).toBe(303);
  const location = res.headers.get('location')!;
  expect(location).toMatch(/^\/app\/check\/job_\w+$/);
  return { jobId: location.split('/').pop()!, text: (await get(location, cookie)).text };
}

describe('the check page', () => {
  it('shows the form to a signed-in person and sends a signed-out one to sign in', async () => {
    const a = await h.account();
    const page = await get('/app/check', await h.sessionCookie(a.account.email));
    expect(page.res.status).toBe(200);
    expect(page.text).toContain('<label for="f-email">Email address <span class="req"');
    const out = await get('/app/check', '');
    expect([out.res.status, out.res.headers.get('location')]).toEqual([303, '/app/sign-in?next=%2Fapp%2Fcheck']);
  });

  it('checks free in sandbox mode: decision, why, retry advice in words, the sandbox banner, no credit used', async () => {
    const a = await h.account({ credits: 5 });
    const cookie = await h.sessionCookie(a.account.email, { sandbox: true });
    const { jobId, text } = await checkOpened(cookie, 'maybe.unknown@example.com');
    expect(text).toContain('<h1>maybe.unknown@example.com</h1>');
    expect(text).toContain('unknown (no_signal)');
    expect(text).toMatch(/<dt>Decision<\/dt><dd>Review before sending<\/dd>/);
    expect(text).toMatch(/Worth checking again in about \d+ (hours|days|minutes)/);
    expect(text).toContain('class="sandbox-banner"');
    expect(text).toContain('<dt>Provider</dt><dd>sandbox</dd>');
    expect(text).not.toContain('data-live=');
    const job = await h.db.collection<JobDoc>(COLLECTIONS.jobs.name).findOne({ _id: jobId });
    expect(job).toMatchObject({ account_id: a.account._id, mode: 'sandbox', kind: 'single', key_id: expect.stringMatching(/^console:/) });
    expect((await getAccount(h.db, a.account._id)).credits).toBe(5);
  });

  it('charges a live check one credit, as the API does, and shows the score', async () => {
    const a = await h.account({ credits: 5 });
    const cookie = await h.sessionCookie(a.account.email);
    const { text } = await checkOpened(cookie, 'jane.doe@example.com');
    expect(text).toContain('deliverable (mailbox_confirmed)');
    expect(text).toMatch(/<dt>Score<\/dt><dd>\d+ of 100<\/dd>/);
    expect(text).not.toContain('class="sandbox-banner"');
    expect((await getAccount(h.db, a.account._id)).credits).toBe(4);
  });

  it('answers an address with a syntax error on the form, in words, free and without a job', async () => {
    const a = await h.account({ credits: 5 });
    const cookie = await h.sessionCookie(a.account.email);
    const res = await check(cookie, 'not an address<b>');
    const text = await res.text();
    expect(res.status).toBe(400);
    expect(text).toContain('That is not an email address we can check (invalid address');
    expect(text).toContain('value="not an address&lt;b>"');
    expect(await h.db.collection<JobDoc>(COLLECTIONS.jobs.name).countDocuments({ account_id: a.account._id })).toBe(0);
    expect((await getAccount(h.db, a.account._id)).credits).toBe(5);
    const empty = await check(cookie, '  ');
    expect([empty.status, (await empty.text()).includes('Enter an email address')]).toEqual([400, true]);
  });

  it('refuses a live check without credits, and one over the per-minute allowance, in words', async () => {
    const poor = await h.account({ credits: 0 });
    const res = await check(await h.sessionCookie(poor.account.email), 'jane.doe@example.com');
    const text = await res.text();
    expect(res.status).toBe(402);
    expect(text).toContain('<h1>Not enough credits</h1>');
    expect(text).toContain('This needs 1 credit and the account has 0');
    expect(text).toContain('turn on sandbox mode');

    const busy = await h.account({ limits: { requestsPerMinute: 1 } });
    const cookie = await h.sessionCookie(busy.account.email, { sandbox: true });
    expect((await check(cookie, 'a@example.com')).status).toBe(303);
    const second = await check(cookie, 'b@example.com');
    const said = await second.text();
    expect(second.status).toBe(429);
    expect(said).toContain('<h1>Too many checks in a minute</h1>');
    expect(said).toMatch(/More than 1 requests in a minute for this account; retry in \d+ s\. Wait that long/);
  });

  it('says "still running" with a live region when the wait runs out, and the region turns into the result', async () => {
    const a = await h.account();
    const cookie = await h.sessionCookie(a.account.email, { sandbox: true });
    h.scheduler!.hold(true);
    let jobId: string;
    try {
      const opened = await checkOpened(cookie, 'slow@example.com');
      jobId = opened.jobId;
      expect(opened.text).toContain(`data-live="/app/check/${jobId}/live"`);
      expect(opened.text).toContain('Still checking: started');
      expect(opened.text).toContain(`<a href="/app/check/${jobId}">Refresh</a>`);
      const live = await get(`/app/check/${jobId}/live`, cookie);
      expect(live.text).toMatch(/^<div><h1>slow@example.com<\/h1>/);
      expect(live.text).not.toContain('data-live-done');
    } finally {
      h.scheduler!.hold(false);
    }
    await expect.poll(async () => (await get(`/app/check/${jobId}/live`, cookie)).text, { timeout: 15_000 }).toContain('data-live-done');
    expect((await get(`/app/check/${jobId}/live`, cookie)).text).toContain('deliverable (mailbox_confirmed)');
  });

  it('shows the evidence, a hostile SMTP reply as text, and no check of another account', async () => {
    const a = await h.account();
    const cookie = await h.sessionCookie(a.account.email, { sandbox: true });
    const { jobId } = await checkOpened(cookie, 'evidence@example.com');
    const hostile = '<script>alert(1)</script><img src=x onerror=alert(2)> mailbox "ok"';
    await h.db.collection<JobItemDoc>(COLLECTIONS.jobItems.name).updateOne(
      { _id: itemId(jobId, 0) },
      { $set: { evidence: { mx_host: 'mx1.<b>evil</b>.example', reply: { code: 250, enhanced: '2.1.5', text: hostile }, catch_all_probe: 'refused' } } },
    );
    const page = await get(`/app/check/${jobId}`, cookie);
    expect(page.text).toContain('<code class="smtp-reply">250 2.1.5 &lt;script>alert(1)&lt;/script>&lt;img src=x onerror=alert(2)> mailbox &quot;ok&quot;</code>');
    expect(page.text).toContain('<code>mx1.&lt;b>evil&lt;/b>.example</code>');
    expect(page.text).toContain('Run: the server refused a random address');
    expect(page.text).not.toContain('<script>alert');

    const other = await h.account();
    const theirs = await h.sessionCookie(other.account.email);
    expect((await get(`/app/check/${jobId}`, theirs)).res.status).toBe(404);
    expect((await get(`/app/check/${jobId}/live`, theirs)).res.status).toBe(404);
    expect((await get('/app/check/job_<x>', cookie)).res.status).toBe(404);
  });
});
