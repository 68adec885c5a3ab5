import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COLLECTIONS, type JobDoc } from '@dv/contracts';
import { addMember, type Account } from '@dv/accounts';
import { formToken, postForm, startConsoleHarness, type ConsoleHarness } from '../testing/console.ts';

// Uploading a list in the console over HTTP: the form, the streamed upload into Redis, the preview
// read as the API reads files, refusals in words before the confirm, and the confirm that starts
// one job, charged once, however often it is sent.

let h: ConsoleHarness;

beforeAll(async () => {
  h = await startConsoleHarness({ label: 'console_lists_new' });
}, 120_000);

afterAll(async () => {
  await h?.close();
});

let seq = 0;
async function signedIn(opts: { credits?: number; role?: 'owner' | 'member'; sandbox?: boolean; limits?: Partial<Account['limits']> } = {}) {
  const t = await h.account({ credits: opts.credits ?? 1_000, limits: opts.limits });
  const email = `uploader${seq++}@example.test`;
  await addMember(h.db, t.account._id, email, opts.role ?? 'owner', 'test');
  const cookie = await h.sessionCookie(email, { accountId: t.account._id, sandbox: opts.sandbox });
  return { ...t, cookie, email };
}

const page = (path: string, cookie?: string) => h.page(path, cookie);

async function upload(cookie: string, file: Buffer | string, name: string, fields: Record<string, string> = {}, opts: { csrf?: boolean } = {}) {
  const token = formToken((await page('/app/lists/new', cookie)).text);
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  form.append('file', new Blob([typeof file === 'string' ? file : new Uint8Array(file)], { type: name.endsWith('.txt') ? 'text/plain' : 'text/csv' }), name);
  const action = opts.csrf === false ? '/app/lists/new' : `/app/lists/new?_csrf=${encodeURIComponent(token)}`;
  const res = await fetch(`${h.url}${action}`, { method: 'POST', body: form, redirect: 'manual', headers: { cookie, origin: h.url, 'sec-fetch-site': 'same-origin' } });
  return { res, text: await res.text(), location: res.headers.get('location') ?? '' };
}

async function confirm(cookie: string, previewPath: string) {
  const preview = await page(previewPath, cookie);
  const column = /name="column" value="([^"]*)"/.exec(preview.text)?.[1] ?? '';
  return postForm(h.url, previewPath, cookie, { _csrf: formToken(preview.text), column });
}

// This harness's own keys: other test files share the Redis server.
const pendingData = () => h.redis.keys(`${h.ctx.config.REDIS_KEY_PREFIX}console:upload:*:data`);
const jobs = () => h.db.collection<JobDoc>(COLLECTIONS.jobs.name);
const credits = async (id: string) => (await h.db.collection<Account>(COLLECTIONS.accounts.name).findOne({ _id: id }))!.credits;

const CSV = 'Name,E-mail,Note\nAnn,ann@example.com,a\nBob,bob@example.com,b\nBob again,BOB@example.com,c\nNobody,not-an-address,d\n';

describe('uploading a list', () => {
  it('shows the form with the account address, previews the file, and one confirm starts one job charged once', async () => {
    const u = await signedIn({ credits: 50 });
    const form = await page('/app/lists/new', u.cookie);
    expect(form.res.status).toBe(200);
    expect(form.text).toContain('enctype="multipart/form-data"');
    expect(form.text).toContain('accept=".csv,.txt,text/csv,text/plain"');
    expect(form.text).toContain(u.account.email);
    expect(form.text).toMatch(/<script type="module" src="\/assets\/upload\.[^"]+\.js"/);

    const up = await upload(u.cookie, CSV, 'list.csv', { label: 'Spring list', notify_email: 'on', max_wall_seconds: '3600' });
    expect(up.res.status).toBe(303);
    expect(up.location).toMatch(/^\/app\/lists\/new\/[A-Za-z0-9_-]{24}$/);
    const preview = await page(up.location, u.cookie);
    expect(preview.res.status).toBe(200);
    expect(preview.text).toContain('<option value="E-mail" selected>');
    expect(preview.text).toMatch(/Unique valid addresses<\/dt><dd><strong>2<\/strong>/);
    expect(preview.text).toMatch(/Duplicates<\/dt><dd>1</);
    expect(preview.text).toMatch(/Invalid<\/dt><dd>1</);
    expect(preview.text).toContain('2 credits of 50 available');
    expect(preview.text).toContain('Spring list');
    expect(preview.text).toContain('1 hour');
    expect(preview.text).toContain('Start the list (2 credits)');

    const [a, b] = await Promise.all([confirm(u.cookie, up.location), confirm(u.cookie, up.location)]);
    expect([a.status, b.status]).toEqual([303, 303]);
    expect(a.headers.get('location')).toMatch(/^\/app\/lists\/job_/);
    expect(b.headers.get('location')).toBe(a.headers.get('location'));
    // A replay after the upload is gone still lands on the job.
    const again = await postForm(h.url, up.location, u.cookie, { _csrf: formToken(preview.text), column: 'E-mail' });
    expect(again.headers.get('location')).toBe(a.headers.get('location'));
    const made = await jobs().find({ account_id: u.account._id }).toArray();
    expect(made).toHaveLength(1);
    expect(made[0]).toMatchObject({ label: 'Spring list', notify_email: true, total: 2, credits_charged: 2, key_id: expect.stringMatching(/^console:/) });
    expect(await credits(u.account._id)).toBe(48);
    // The stored file is gone: the preview is a 404 now.
    expect((await page(up.location, u.cookie)).res.status).toBe(404);
  });

  it('lets a member upload; a sandbox session says it is free; a TXT file has one address a line', async () => {
    const u = await signedIn({ role: 'member', sandbox: true, credits: 0 });
    const up = await upload(u.cookie, 'a@example.com\n\nb@example.com\r\n', 'list.txt');
    expect(up.res.status).toBe(303);
    const preview = await page(up.location, u.cookie);
    expect(preview.text).toContain('Free: sandbox mode simulates every result');
    expect(preview.text).toContain('free in sandbox');
    const done = await confirm(u.cookie, up.location);
    expect(done.status).toBe(303);
    expect((await jobs().findOne({ account_id: u.account._id }))!.mode).toBe('sandbox');
  });

  it('renders hostile header and cells as text', async () => {
    const u = await signedIn();
    const evil = '<img src=x onerror=alert(1)>';
    const up = await upload(u.cookie, `email,"${evil}"\nann@example.com,"${evil}"\n`, 'evil.csv');
    const preview = await page(up.location, u.cookie);
    expect(preview.text).not.toContain('<img src=x');
    expect(preview.text).toContain('<th scope="col">&lt;img src=x onerror=alert(1)></th>');
    expect(preview.text).toContain('<td>&lt;img src=x onerror=alert(1)></td>');
  });

  it('refuses what is not a list, an empty file and a file over 50 MB, in words', async () => {
    const u = await signedIn();
    const pending = (await pendingData()).length;
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
    const a = await upload(u.cookie, png, 'photo.csv');
    expect(a.res.status).toBe(415);
    expect(a.text).toContain('a PNG image, not a list of addresses');
    expect(a.text).toContain('Upload a CSV file');
    const zip = await upload(u.cookie, Buffer.from('PK\u0003\u0004rest-of-a-zip'), 'list.zip');
    expect(zip.text).toContain('ZIP archive');
    const empty = await upload(u.cookie, '', 'empty.csv');
    expect(empty.res.status).toBe(422);
    expect(empty.text).toContain('is empty');
    const big = Buffer.alloc(50 * 1024 * 1024 + 1, 'a');
    big.write('email\n');
    const tooBig = await upload(u.cookie, big, 'big.csv');
    expect(tooBig.res.status).toBe(413);
    expect(tooBig.text).toContain('larger than 50 MB');
    // Nothing of the refused files waits in Redis.
    expect((await pendingData()).length).toBe(pending);
  });

  it('refuses a webhook URL the API would refuse, on the form again with the choices kept', async () => {
    const u = await signedIn();
    const pending = (await pendingData()).length;
    const r = await upload(u.cookie, CSV, 'list.csv', { label: 'Kept', webhook_url: 'https://10.0.0.1/hook', max_wall_seconds: '86400' });
    expect(r.res.status).toBe(422);
    expect(r.text).toContain('webhook_url refused');
    expect(r.text).toContain('value="Kept"');
    expect(r.text).toContain('<option value="86400" selected>');
    expect((await pendingData()).length).toBe(pending);
  });

  it('asks for the column when none looks like addresses, and recomputes with the one chosen', async () => {
    const u = await signedIn();
    const up = await upload(u.cookie, 'name,contact\nAnn,ann@example.com\nBob,bob@example.com\n', 'people.csv');
    const preview = await page(up.location, u.cookie);
    expect(preview.text).toContain('No column looks like it holds email addresses');
    expect(preview.text).not.toContain('Start the list');
    const chosen = await page(`${up.location}?column=contact`, u.cookie);
    expect(chosen.text).toContain('<option value="contact" selected>');
    expect(chosen.text).toMatch(/Unique valid addresses<\/dt><dd><strong>2<\/strong>/);
    expect(chosen.text).toContain('Start the list (2 credits)');
  });

  it('says before the confirm what would refuse the job: credits, running lists, the plan size', async () => {
    const poor = await signedIn({ credits: 1 });
    const a = await upload(poor.cookie, CSV, 'list.csv');
    const p = await page(a.location, poor.cookie);
    expect(p.text).toContain('This list costs 2 credits and the account has 1.');
    expect(p.text).toContain('href="/app/plan"');
    expect(p.text).not.toContain('Start the list (');
    // Confirming anyway is refused in words, and nothing is charged.
    const forced = await postForm(h.url, a.location, poor.cookie, { _csrf: formToken(p.text), column: 'E-mail' });
    expect(forced.status).toBe(402);
    expect(await forced.text()).toContain('needs 2 credits');
    expect(await credits(poor.account._id)).toBe(1);

    const small = await signedIn({ limits: { emailsPerJob: 1 } });
    const b = await upload(small.cookie, CSV, 'list.csv');
    const q = await page(b.location, small.cookie);
    expect(q.res.status).toBe(413);
    expect(q.text).toContain('the most your plan allows in one list');

    const busy = await signedIn({ limits: { concurrentJobs: 1 } });
    const first = await upload(busy.cookie, CSV, 'one.csv');
    expect((await confirm(busy.cookie, first.location)).status).toBe(303);
    const second = await upload(busy.cookie, 'email\ncat@example.com\n', 'two.csv');
    const r = await page(second.location, busy.cookie);
    expect(r.text).toContain('already has 1 list running');
    expect(r.text).toContain('href="/app/lists"');
  });

  it('404s an upload of another person or account, or an unknown one; 403s a post without its token', async () => {
    const u = await signedIn();
    const other = await signedIn();
    const up = await upload(u.cookie, CSV, 'list.csv');
    expect((await page(up.location, other.cookie)).res.status).toBe(404);
    const stolen = await postForm(h.url, up.location, other.cookie, { _csrf: formToken((await page('/app/lists/new', other.cookie)).text), column: 'E-mail' });
    expect(stolen.status).toBe(404);
    expect((await page('/app/lists/new/AAAAAAAAAAAAAAAAAAAAAAAA', u.cookie)).text).toContain('Upload the file again');
    const noToken = await upload(u.cookie, CSV, 'list.csv', {}, { csrf: false });
    expect(noToken.res.status).toBe(403);
    const keys = await h.redis.keys(`${h.ctx.config.REDIS_KEY_PREFIX}console:uploads:*`);
    expect(keys.length).toBeGreaterThan(0);
    // At most two pending uploads per person: a third drops the oldest.
    const more = [await upload(u.cookie, CSV, 'b.csv'), await upload(u.cookie, CSV, 'c.csv')];
    expect((await page(up.location, u.cookie)).res.status).toBe(404);
    for (const m of more) expect((await page(m.location, u.cookie)).res.status).toBe(200);
  });
});
