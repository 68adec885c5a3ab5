import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COLLECTIONS, type JobDoc } from '@dv/contracts';
import { addMember } from '@dv/accounts';
import { call } from '../testing/harness.ts';
import { EVIL, formToken, postForm, startConsoleHarness, uploadJob, type ConsoleHarness } from '../testing/console.ts';
import type { TestAccount } from '../testing/harness.ts';

// The lists pages over HTTP: the account's jobs and nobody else's (404 for another account's job
// and for a malformed id), the live answers and when they stop, cancel with its refund (members
// too) and its refusal on a finished list, and the downloads: the API's signed links, a part of
// the rows per link, the upload's columns kept.

const CSV = `email,first name,company\nann@example.com,Ann,"=HYPERLINK(""x"")"\ncarl.invalid@example.com,Carl,${EVIL}\ndora.full@example.com,Dora,Acme\n`;

let h: ConsoleHarness;
let a: TestAccount;
let other: TestAccount;
let owner: string;
let stranger: string;
let done: string;
let foreign: string;

const waitDone = async (key: string, jobId: string) => expect((await call(h.url, `/v1/jobs/${jobId}?wait=20`, { key })).body.status).toBe('completed');

beforeAll(async () => {
  h = await startConsoleHarness({ label: 'console_lists', scheduler: true });
  a = await h.account({ credits: 100, limits: { concurrentJobs: 50 } });
  other = await h.account({ credits: 100 });
  owner = await h.sessionCookie(a.account.email);
  stranger = await h.sessionCookie(other.account.email);
  done = await uploadJob(h.url, a.live, CSV, `Q4 ${EVIL}`);
  await waitDone(a.live, done);
  foreign = await uploadJob(h.url, other.live, CSV, 'theirs');
  await waitDone(other.live, foreign);
}, 120_000);

afterAll(async () => {
  await h?.close();
});

const page = (path: string, cookie?: string) => h.page(path, cookie);

describe('the lists page', () => {
  it("shows the account's lists with status, progress, counts by status and decision, hostile labels as text", async () => {
    const sandboxJob = await uploadJob(h.url, a.sandbox, 'email\nbob@example.com\n', 'trial run');
    await waitDone(a.sandbox, sandboxJob);
    const { status, text } = await page('/app/lists', owner);
    expect(status).toBe(200);
    expect(text).toContain('href="/app/lists/new"');
    expect(text).toContain('Q4 &lt;img src=x onerror=alert(1)>&lt;script>alert(2)&lt;/script>');
    expect(text).not.toContain('<img src=x');
    expect(text).toContain('1 deliverable · 1 risky · 1 undeliverable · 0 unknown');
    expect(text).toContain('1 send · 0 review · 2 drop');
    expect(text).toMatch(/<progress max="3" value="3"/);
    // Newest first; the sandbox job is marked; nothing runs, so the region does not refresh.
    expect(text.indexOf('trial run')).toBeLessThan(text.indexOf('Q4 &lt;img'));
    expect(text).toContain('badge-neutral">sandbox</span>');
    expect(text).not.toContain('data-live=');
    expect(text).not.toContain('theirs');
  });

  it('pages with ?after=<job id>, 20 lists a page', async () => {
    const b = await h.account({ credits: 100, limits: { concurrentJobs: 50 } });
    const cookie = await h.sessionCookie(b.account.email);
    const ids: string[] = [];
    for (let i = 0; i < 21; i++) {
      ids.push(await uploadJob(h.url, b.sandbox, `email\np${i}@example.com\n`, `list ${i}`));
      await waitDone(b.sandbox, ids[i]!);
    }
    const first = await page('/app/lists', cookie);
    expect(first.text.match(/class="job-card"/g)).toHaveLength(20);
    expect(first.text).not.toContain('>list 0<');
    const older = /href="(\/app\/lists\?after=job_[^"]+)"/.exec(first.text)![1]!;
    const second = await page(older, cookie);
    expect(second.text.match(/class="job-card"/g)).toHaveLength(1);
    expect(second.text).toContain('>list 0<');
    expect(second.text).not.toContain('Older lists');
    // A malformed cursor is ignored, not an error.
    expect((await page('/app/lists?after=%3Cx%3E', cookie)).status).toBe(200);
  });

  it('refreshes while a list runs and the live answer stops once nothing runs', async () => {
    h.scheduler!.hold(true);
    let running: string;
    try {
      running = await uploadJob(h.url, a.sandbox, 'email\nheld@example.com\n', 'held');
      const open = await page('/app/lists', owner);
      expect(open.text).toMatch(/data-live="\/app\/lists\/live" data-live-ms="3000"/);
      const live = await page('/app/lists/live', owner);
      expect(live.status).toBe(200);
      expect(live.text.startsWith('<div id="jobs" data-live="/app/lists/live"')).toBe(true);
      expect(live.text).not.toContain('data-live-done');
      expect(live.text).not.toContain('<html');
    } finally {
      h.scheduler!.hold(false);
    }
    await waitDone(a.sandbox, running);
    const after = await page('/app/lists/live', owner);
    expect(after.text).toMatch(/^<div id="jobs" data-live-done[ >]/);
    // Signed out: not the sign-in page (the script would put it in the region), a word and the end of the refresh.
    for (const path of ['/app/lists/live', `/app/lists/${running}/live`]) {
      const out = await page(path, '');
      expect([out.status, out.text]).toEqual([200, '<div data-live-done><p class="flash flash-info">Your session has ended: reload the page to sign in again.</p></div>']);
    }
  });
});

describe('a list of another account, or a malformed id', () => {
  it('is the 404 page, for the page, its live answer, its cancel', async () => {
    for (const path of [`/app/lists/${foreign}`, `/app/lists/${foreign}/live`, '/app/lists/job_nope', '/app/lists/%3Cscript%3E', `/app/lists/${done}x`]) {
      const r = await page(path, owner);
      expect([path, r.status]).toEqual([path, 404]);
      expect(r.text).toContain('does not exist, or it belongs to another account');
    }
    const form = await page(`/app/lists/${done}`, owner);
    const res = await postForm(h.url, `/app/lists/${foreign}/cancel`, owner, { _csrf: formToken(form.text) });
    expect(res.status).toBe(404);
    expect((await page(`/app/lists/${done}`, stranger)).status).toBe(404);
  });
});

describe('the list page', () => {
  it('shows facts, progress, outcome by status and decision, the webhook state as text, and that a finished list cannot be canceled', async () => {
    await h.db.collection<JobDoc>(COLLECTIONS.jobs.name).updateOne({ _id: done }, { $set: { webhook: { url: `https://hooks.example.com/${EVIL}`, attempts: 2, last_status: 500, last_error: `answered ${EVIL}`, next_attempt_at: new Date(Date.now() + 60_000), delivered_at: null } } });
    const { status, text } = await page(`/app/lists/${done}`, owner);
    expect(status).toBe(200);
    expect(text).toContain('<h1>Q4 &lt;img src=x onerror=alert(1)>&lt;script>alert(2)&lt;/script></h1>');
    expect(text).toContain('answered &lt;img src=x onerror=alert(1)>');
    expect(text).toContain('HTTP 500');
    expect(text).toContain('failed so far; next try');
    expect(text).toContain('Results by status');
    expect(text).toContain('Results by decision');
    expect(text).toContain('This list has completed: a finished list cannot be canceled.');
    expect(text).not.toContain('/cancel"');
    expect(text).toMatch(/<div id="job-live" data-live-done[ >]/);
    const res = await postForm(h.url, `/app/lists/${done}/cancel`, owner, { _csrf: formToken(text) });
    expect(res.status).toBe(409);
    expect(await res.text()).toContain('has already completed; nothing to cancel');
  });

  it("lists the API's signed downloads: each part holds only its rows, keeps the upload's columns, works without a session, and no link opens another part", async () => {
    const { text } = await page(`/app/lists/${done}`, owner);
    const links = [...text.matchAll(/href="(http:\/\/127\.0\.0\.1:\d+\/v1\/downloads\/[^"]+)"/g)].map((m) => m[1]!.replaceAll('&amp;', '&'));
    expect(links).toHaveLength(16);
    const get = (u: string) => fetch(u).then(async (r) => ({ status: r.status, body: await r.text() }));
    const drop = links.find((l) => l.includes('.csv?decision=drop&'))!;
    const csv = await get(drop);
    expect(csv.status).toBe(200);
    const lines = csv.body.trim().split('\r\n');
    expect(lines[0]).toMatch(/^email,ref,status,.*,checked_at,first name,company$/);
    expect(lines.slice(1).map((l) => l.split(',')[0]).sort()).toEqual(['carl.invalid@example.com', 'dora.full@example.com']);
    expect(csv.body).toContain(EVIL);
    // The same file as the API's own results, filtered the same way.
    const api = await fetch(`${h.url}/v1/jobs/${done}/results?format=csv&decision=drop`, { headers: { authorization: `Bearer ${a.live}` } });
    expect(csv.body).toBe(await api.text());
    const all = await get(links.find((l) => l.includes('.csv?exp='))!);
    expect(all.body).toContain("'=HYPERLINK");
    expect(all.body.trim().split('\r\n')).toHaveLength(4);
    const nd = await get(links.find((l) => l.includes('.ndjson?status=deliverable&'))!);
    expect(nd.body.trim().split('\n').map((l) => (JSON.parse(l) as { email: string }).email)).toEqual(['ann@example.com']);
    // A part's signature does not open another part, the whole file, or the other format.
    expect((await get(drop.replace('decision=drop', 'decision=send'))).status).toBe(403);
    expect((await get(drop.replace('decision=drop&', ''))).status).toBe(403);
    expect((await get(drop.replace('.csv?', '.ndjson?'))).status).toBe(403);
  });
});

describe('cancel', () => {
  it('a member cancels a running list: the unchecked addresses are refunded and the page says how many', async () => {
    await addMember(h.db, a.account._id, 'helper@example.test', 'member', 'test');
    const member = await h.sessionCookie('helper@example.test', { accountId: a.account._id });
    h.scheduler!.hold(true);
    try {
      const before = (await call(h.url, '/v1/account', { key: a.live })).body.credits.balance as number;
      const jobId = await uploadJob(h.url, a.live, 'email\nx1@example.com\nx2@example.com\nx3@example.com\n', 'to cancel');
      const form = await page(`/app/lists/${jobId}`, member);
      expect(form.text).toContain('data-confirm="Cancel to cancel?');
      expect(form.text).toMatch(/data-live="\/app\/lists\/job_[^"]+\/live"/);
      const res = await postForm(h.url, `/app/lists/${jobId}/cancel`, member, { _csrf: formToken(form.text) });
      expect([res.status, res.headers.get('location')]).toEqual([303, `/app/lists/${jobId}`]);
      const after = await page(`/app/lists/${jobId}`, `${member}; ${res.headers.getSetCookie()[0]!.split(';')[0]}`);
      expect(after.text).toContain('to cancel was canceled: 3 addresses not checked, 3 credits refunded.');
      expect(after.text).toContain('This list was canceled.');
      expect((await call(h.url, '/v1/account', { key: a.live })).body.credits.balance).toBe(before);
      const job = await h.db.collection<JobDoc>(COLLECTIONS.jobs.name).findOne({ _id: jobId });
      expect(job).toMatchObject({ status: 'canceled', credits_refunded: 3 });
      // Again: nothing changes, nothing is refunded twice.
      const again = await postForm(h.url, `/app/lists/${jobId}/cancel`, member, { _csrf: formToken(form.text) });
      expect(again.status).toBe(303);
      expect((await call(h.url, '/v1/account', { key: a.live })).body.credits.balance).toBe(before);
    } finally {
      h.scheduler!.hold(false);
    }
  });

  it('refuses a post without the page token', async () => {
    const res = await postForm(h.url, `/app/lists/${done}/cancel`, owner, {});
    expect(res.status).toBe(403);
  });
});
