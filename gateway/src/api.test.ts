import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COLLECTIONS, CONSUMERS, KV_BUCKETS, SUBJECTS, cacheId, type CacheDoc, type JobDoc, type JobItemDoc } from '@dv/contracts';
import { revokeApiKey, type Account } from '@dv/accounts';
import { sandboxResult } from '@dv/verdict';
import { Kvm } from '@nats-io/kv';
import { jetstreamManager } from '@nats-io/jetstream';
import { downloadSignature } from '@dv/notify';
import { call, startGatewayHarness, type GatewayHarness, type TestAccount } from './testing/harness.ts';
import { until } from '@dv/test-kit';

// Every endpoint's happy path and the spec's error table, against real NATS (private), Redis and
// MongoDB, with the fake scheduler answering items as the real one stores them.

let h: GatewayHarness;
let a: TestAccount;
beforeAll(async () => {
  h = await startGatewayHarness({ label: 'api', scheduler: true });
  a = await h.account({ credits: 100 });
});
afterAll(async () => h?.close());

const credits = async (id: string) => (await h.db.collection<Account>(COLLECTIONS.accounts.name).findOne({ _id: id }))!.credits;
const isProblem = (r: { headers: Headers; body: { code?: string; detail?: unknown } }, code: string) => {
  expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(r.body.code).toBe(code);
  expect(r.body.detail).toBeTruthy();
};

describe('no key needed', () => {
  it('GET /v1/health and /v1/openapi.json', async () => {
    const health = await call(h.url, '/v1/health');
    expect(health.status).toBe(200);
    expect(health.body.status).toBe('ok');
    const doc = await call(h.url, '/v1/openapi.json');
    expect(doc.status).toBe(200);
    expect(doc.body.info.version).toBe('1.0.0');
  });
});

describe('authentication and plans', () => {
  it('401 missing_api_key and invalid_api_key', async () => {
    isProblem(await call(h.url, '/v1/account'), 'missing_api_key');
    isProblem(await call(h.url, '/v1/account', { headers: { authorization: 'Basic abc' } }), 'missing_api_key');
    isProblem(await call(h.url, '/v1/account', { key: 'dv_live_abcdefghjk_' + 'A'.repeat(32) }), 'invalid_api_key');
    isProblem(await call(h.url, '/v1/account', { key: a.live.slice(0, -1) + (a.live.endsWith('A') ? 'B' : 'A') }), 'invalid_api_key');
  });

  it('refuses a revoked key at once', async () => {
    const b = await h.account();
    expect((await call(h.url, '/v1/account', { key: b.live })).status).toBe(200);
    await revokeApiKey(h.db, b.live.split('_').slice(0, 3).join('_'));
    // The change stream invalidates the remembered key within milliseconds.
    let status = 0;
    for (let i = 0; i < 10 && status !== 401; i++) {
      status = (await call(h.url, '/v1/account', { key: b.live })).status;
      if (status !== 401) await new Promise((r) => setTimeout(r, 50));
    }
    expect(status).toBe(401);
  });

  it('403 plan_not_entitled with upgrade_url, 403 account_inactive', async () => {
    const free = await h.account({ plan: 'growth' });
    const r = await call(h.url, '/v1/verify', { key: free.live, body: { email: 'x@example.com' } });
    isProblem(r, 'plan_not_entitled');
    expect(r.status).toBe(403);
    // UPGRADE_URL unset: the console's plan page.
    const planPage = `${h.ctx.config.PUBLIC_BASE_URL}/app/plan`;
    expect(r.body.upgrade_url).toBe(planPage);
    const inactive = await h.account({ status: 'inactive' });
    const r2 = await call(h.url, '/v1/account', { key: inactive.sandbox });
    expect(r2.status).toBe(403);
    isProblem(r2, 'account_inactive');
    expect(r2.body.detail).toBe(`This account is inactive; ${planPage} says how to reactivate it.`);
  });

  it('updates last_used_at', async () => {
    const b = await h.account();
    await call(h.url, '/v1/account', { key: b.sandbox });
    await new Promise((r) => setTimeout(r, 200));
    const key = await h.db.collection(COLLECTIONS.apiKeys.name).findOne({ account_id: b.account._id, mode: 'sandbox' });
    expect(key?.last_used_at).toBeInstanceOf(Date);
  });
});

describe('POST /v1/verify', () => {
  it('200 with the result within wait; fields trim; ref echoed', async () => {
    const r = await call(h.url, '/v1/verify', { key: a.sandbox, body: { email: 'Jane.Catchall@Example.COM', ref: 'crm-1', wait: 10 } });
    expect(r.status).toBe(200);
    expect(r.body.result).toMatchObject({ email: 'Jane.Catchall@example.com', ref: 'crm-1', status: 'risky', sub_status: 'catch_all', cached: false, decision: { action: 'review' } });
    const t = await call(h.url, '/v1/verify', { key: a.sandbox, body: { email: 'bob@example.com', fields: 'status,decision', wait: 10 } });
    expect(Object.keys(t.body.result).sort()).toEqual(['decision', 'status']);
  });

  it('answers bad syntax at once as undeliverable/syntax, free', async () => {
    const before = await credits(a.account._id);
    const r = await call(h.url, '/v1/verify', { key: a.live, body: { email: 'no-at-sign', wait: 0 } });
    expect(r.status).toBe(200);
    expect(r.body.result).toMatchObject({ status: 'undeliverable', sub_status: 'syntax' });
    expect(await credits(a.account._id)).toBe(before);
  });

  it('202 with queue information when not done within wait; the status_url long-poll carries the result', async () => {
    h.scheduler!.hold(true);
    const r = await call(h.url, '/v1/verify', { key: a.sandbox, body: { email: 'slow@example.com', wait: 0, webhook_url: 'https://hooks.example.com/x' } });
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({ job_id: expect.stringMatching(/^job_/), estimated_seconds: expect.any(Number), queue: { ahead: expect.any(Number), load: 'normal' } });
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(r.body.status_url).toMatch(new RegExp(`/v1/jobs/${r.body.job_id}$`));
    const job = await h.db.collection<JobDoc>(COLLECTIONS.jobs.name).findOne({ _id: r.body.job_id });
    expect(job?.webhook).toMatchObject({ url: 'https://hooks.example.com/x', attempts: 0 });
    const path = new URL(r.body.status_url).pathname;
    const poll = call(h.url, `${path}?wait=20`, { key: a.sandbox });
    await new Promise((res) => setTimeout(res, 300));
    h.scheduler!.hold(false);
    const done = await poll;
    expect(done.status).toBe(200);
    expect(done.body.status).toBe('completed');
    expect(done.body.result.status).toBe('deliverable');
  });

  it('live checks cost 1 credit; 402 insufficient_credits when short', async () => {
    const b = await h.account({ credits: 1 });
    const r = await call(h.url, '/v1/verify', { key: b.live, body: { email: 'one@example.com', wait: 10 } });
    expect(r.status).toBe(200);
    expect(await credits(b.account._id)).toBe(0);
    const r2 = await call(h.url, '/v1/verify', { key: b.live, body: { email: 'two@example.com', wait: 0 } });
    expect(r2.status).toBe(402);
    isProblem(r2, 'insufficient_credits');
    expect(r2.body.detail).toMatch(/^This needs 1 credit and the account has 0;/);
    const sandbox = await call(h.url, '/v1/verify', { key: b.sandbox, body: { email: 'three@example.com', wait: 10 } });
    expect(sandbox.status).toBe(200);
  });

  it('max_age_days serves a fresh-enough cached result, free; force_fresh does not', async () => {
    const b = await h.account({ credits: 5 });
    const result = sandboxResult('cached@example.com', new Date(Date.now() - 2 * 86_400_000));
    await h.db.collection<CacheDoc>(COLLECTIONS.verificationCache.name).insertOne({ _id: cacheId('cached@example.com'), email: 'cached@example.com', result, checked_at: new Date(Date.now() - 2 * 86_400_000), expires_at: new Date(Date.now() + 86_400_000) });
    const hit = await call(h.url, '/v1/verify', { key: b.live, body: { email: 'cached@example.com', max_age_days: 3, ref: 'r' } });
    expect(hit.status).toBe(200);
    expect(hit.body.result).toMatchObject({ cached: true, ref: 'r', status: 'deliverable' });
    expect(await credits(b.account._id)).toBe(5);
    const stale = await call(h.url, '/v1/verify', { key: b.live, body: { email: 'cached@example.com', max_age_days: 1, wait: 10 } });
    expect(stale.body.result.cached).toBe(false);
    const fresh = await call(h.url, '/v1/verify', { key: b.live, body: { email: 'cached@example.com', max_age_days: 3, force_fresh: true, wait: 10 } });
    expect(fresh.body.result.cached).toBe(false);
    expect(await credits(b.account._id)).toBe(3);
  });

  it('422 validation_error with the spec detail array', async () => {
    const r = await call(h.url, '/v1/verify', { key: a.sandbox, body: { email: 'x@example.com', wait: 56, webhook_url: 'http://insecure.example.com', fields: 'status,nope' } });
    expect(r.status).toBe(422);
    isProblem(r, 'validation_error');
    const locs = (r.body.detail as { loc: unknown[]; msg: string; type: string }[]).map((d) => d.loc.join('.'));
    expect(locs).toEqual(expect.arrayContaining(['body.wait', 'body.webhook_url', 'body.fields']));
    for (const d of r.body.detail) expect(d).toMatchObject({ loc: expect.any(Array), msg: expect.any(String), type: expect.any(String) });
    const missing = await call(h.url, '/v1/verify', { key: a.sandbox, body: {} });
    expect(missing.body.detail[0].loc).toEqual(['body', 'email']);
  });
});

describe('jobs', () => {
  let jobId: string;
  it('POST /v1/jobs (items with ref and meta), GET status with wait, results in json/ndjson/csv', async () => {
    const before = await credits(a.account._id);
    const items = [
      { email: 'ann@example.com', ref: 'r1', meta: { name: '=HYPERLINK("x")', company: 'Acme' } },
      { email: 'ANN@example.com', ref: 'dup' },
      { email: 'carl.invalid@example.com', ref: 'r3', meta: { name: 'Carl' } },
      { email: 'dora.full@example.com' },
      { email: 'not an address' },
    ];
    const r = await call(h.url, '/v1/jobs', { key: a.live, body: { items, label: 'Q4 list', max_wall_seconds: 3600, notify_email: true } });
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({ accepted: 3, duplicates_removed: 1, credits_charged: 3, status: 'running', total: 3, label: 'Q4 list', notify_email: true });
    expect(r.body.invalid).toEqual([expect.objectContaining({ index: 4, reason: expect.any(String) })]);
    expect(await credits(a.account._id)).toBe(before - 3);
    const ledger = await h.db.collection(COLLECTIONS.creditLedger.name).findOne({ _id: `charge:${r.body.job_id}` } as object);
    expect(ledger).toMatchObject({ delta: -3 });
    jobId = r.body.job_id;
    const s = await call(h.url, `/v1/jobs/${jobId}?wait=20`, { key: a.live });
    expect(s.body).toMatchObject({ status: 'completed', done: 3, total: 3, counts: { deliverable: 1, undeliverable: 1, risky: 1, unknown: 0 } });
    // The completion email's state is on the view: here as a worker without a relay leaves it (docs/notify.md §6).
    await h.db.collection<JobDoc>(COLLECTIONS.jobs.name).updateOne({ _id: jobId }, { $set: { notify: { attempts: 0, last_error: 'not sent: no SMTP relay is configured', next_attempt_at: null, sent_at: null, gave_up_at: null, unsent_reason: 'no_smtp_relay' } } });
    expect((await call(h.url, `/v1/jobs/${jobId}`, { key: a.live })).body.notify).toEqual({ attempts: 0, last_error: 'not sent: no SMTP relay is configured', next_attempt_at: null, sent_at: null, gave_up_at: null, unsent_reason: 'no_smtp_relay' });

    const page1 = await call(h.url, `/v1/jobs/${jobId}/results?limit=2`, { key: a.live });
    expect(page1.body.results).toHaveLength(2);
    expect(page1.body.results[0]).toMatchObject({ email: 'ann@example.com', ref: 'r1', meta: { company: 'Acme' } });
    const page2 = await call(h.url, `/v1/jobs/${jobId}/results?limit=2&cursor=${page1.body.next_cursor}`, { key: a.live });
    expect(page2.body.results).toHaveLength(1);
    expect(page2.body.next_cursor).toBeNull();

    const drop = await call(h.url, `/v1/jobs/${jobId}/results?decision=drop&fields=email,decision`, { key: a.live });
    expect(drop.body.results.map((x: { email: string }) => x.email).sort()).toEqual(['carl.invalid@example.com', 'dora.full@example.com']);
    expect(Object.keys(drop.body.results[0]).sort()).toEqual(['decision', 'email']);
    const deliverable = await call(h.url, `/v1/jobs/${jobId}/results?status=deliverable`, { key: a.live });
    expect(deliverable.body.results).toHaveLength(1);

    const nd = await fetch(`${h.url}/v1/jobs/${jobId}/results?format=ndjson`, { headers: { authorization: `Bearer ${a.live}` } });
    expect(nd.headers.get('content-type')).toMatch(/ndjson/);
    const lines = (await nd.text()).trim().split('\n').map((l) => JSON.parse(l));
    expect(lines).toHaveLength(3);

    const csv = await fetch(`${h.url}/v1/jobs/${jobId}/results?format=csv`, { headers: { authorization: `Bearer ${a.live}` } });
    const text = await csv.text();
    const [header, first] = text.split('\r\n');
    expect(header).toContain('decision,decision_why');
    expect(header!.endsWith('name,company')).toBe(true);
    expect(first).toContain(`'=HYPERLINK`);
  });

  it('GET /v1/jobs lists with status filter, limit and cursor', async () => {
    const b = await h.account();
    for (let i = 0; i < 3; i++) await call(h.url, '/v1/jobs', { key: b.sandbox, body: { emails: [`u${i}@example.com`] } });
    const p1 = await call(h.url, '/v1/jobs?limit=2', { key: b.sandbox });
    expect(p1.body.jobs).toHaveLength(2);
    const p2 = await call(h.url, `/v1/jobs?limit=2&cursor=${p1.body.next_cursor}`, { key: b.sandbox });
    expect(p2.body.jobs).toHaveLength(1);
    expect(p2.body.next_cursor).toBeNull();
    const none = await call(h.url, '/v1/jobs?status=canceled', { key: b.sandbox });
    expect(none.body.jobs).toEqual([]);
    const bad = await call(h.url, '/v1/jobs?limit=101', { key: b.sandbox });
    isProblem(bad, 'validation_error');
    isProblem(await call(h.url, '/v1/jobs?cursor=garbage', { key: b.sandbox }), 'validation_error');
  });

  it('sandbox single checks written in groups each get their own job, item and message', async () => {
    const b = await h.account();
    const emails = Array.from({ length: 30 }, (_, i) => `group${i}@example.com`);
    const answers = await Promise.all(emails.map((email) => call(h.url, '/v1/verify', { key: b.sandbox, body: { email, wait: 0 } })));
    const ids = answers.map((r) => r.body.job_id as string);
    expect(answers.every((r) => r.status === 202 || r.status === 200)).toBe(true);
    expect(new Set(ids).size).toBe(30);
    const items = await h.db.collection<JobItemDoc>(COLLECTIONS.jobItems.name).find({ job_id: { $in: ids } }).toArray();
    expect(items.map((i) => i.email).sort()).toEqual([...emails].sort());
    // The published mark follows the answer (it is not on the request's path).
    await expect.poll(async () => h.db.collection<JobDoc>(COLLECTIONS.jobs.name).countDocuments({ _id: { $in: ids }, unpublished: null }), { timeout: 10_000 }).toBe(30);
  });

  it('a job of several insert batches is wholly published before the answer; its mark is cleared after', async () => {
    const b = await h.account({ credits: 5_000 });
    h.scheduler!.hold(true);
    try {
      const emails = Array.from({ length: 4_500 }, (_, i) => `batch${i}@example.com`);
      const r = await call(h.url, '/v1/jobs', { key: b.live, body: { emails } });
      expect(r.status).toBe(202);
      expect(await h.db.collection<JobItemDoc>(COLLECTIONS.jobItems.name).countDocuments({ job_id: r.body.job_id })).toBe(4_500);
      await expect.poll(async () => (await h.db.collection<JobDoc>(COLLECTIONS.jobs.name).findOne({ _id: r.body.job_id }))?.unpublished, { timeout: 10_000 }).toBeNull();
      // Every message is in the stream; dropped again so the fake scheduler does not spend the
      // next tests' time answering 4,500 of them one by one.
      const jsm = await jetstreamManager(h.nc);
      expect((await jsm.streams.info('VERIFY')).state.messages).toBeGreaterThanOrEqual(4_500);
      await jsm.streams.purge('VERIFY', { filter: SUBJECTS.verifyList });
    } finally {
      h.scheduler!.hold(false);
    }
  });

  it('DELETE cancels, refunds unprocessed items exactly once', async () => {
    const b = await h.account({ credits: 10 });
    h.scheduler!.hold(true);
    try {
      const r = await call(h.url, '/v1/jobs', { key: b.live, body: { emails: ['p@example.com', 'q@example.com', 'r@example.com'] } });
      expect(await credits(b.account._id)).toBe(7);
      // Every item's message was acked before the response; the marks follow, so none is left for the scheduler's stranded-item sweep.
      await expect.poll(async () => (await h.db.collection<JobDoc>(COLLECTIONS.jobs.name).findOne({ _id: r.body.job_id }))?.unpublished, { timeout: 10_000 }).toBeNull();
      const c = await call(h.url, `/v1/jobs/${r.body.job_id}`, { key: b.live, method: 'DELETE' });
      expect(c.status).toBe(200);
      expect(c.body).toMatchObject({ status: 'canceled', credits_refunded: 3 });
      const again = await call(h.url, `/v1/jobs/${r.body.job_id}`, { key: b.live, method: 'DELETE' });
      expect(again.body.credits_refunded).toBe(3);
      expect(await credits(b.account._id)).toBe(10);
      const states = await h.db.collection<JobItemDoc>(COLLECTIONS.jobItems.name).distinct('state', { job_id: r.body.job_id });
      expect(states).toEqual(['canceled']);
      isProblem(await call(h.url, `/v1/jobs/${jobId}`, { key: a.live, method: 'DELETE' }), 'conflict');
      isProblem(await call(h.url, '/v1/jobs/job_01m80dbqat1jtnsfaxsce0tkew', { key: b.live, method: 'DELETE' }), 'not_found');
    } finally {
      h.scheduler!.hold(false);
    }
  });

  it('signed downloads: valid link streams the CSV; forged or expired is 403', async () => {
    const s = await call(h.url, `/v1/jobs/${jobId}`, { key: a.live });
    const link = new URL(s.body.download_url);
    const ok = await fetch(`${h.url}${link.pathname}${link.search}`);
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain('decision_why');
    const forged = await call(h.url, `${link.pathname}?exp=${link.searchParams.get('exp')}&sig=${'0'.repeat(64)}`);
    expect(forged.status).toBe(403);
    isProblem(forged, 'forbidden');
    const past = Math.floor(Date.now() / 1000) - 10;
    const expired = await call(h.url, `/v1/downloads/${jobId}.csv?exp=${past}&sig=${downloadSignature(jobId, past, 'test-download-secret-test-download-secret')}`);
    expect(expired.status).toBe(403);
    expect((await call(h.url, `/v1/downloads/${jobId}.csv`)).status).toBe(403);
  });

  it('413 job_too_large; 415 for other media types', async () => {
    const b = await h.account({ limits: { emailsPerJob: 3 } });
    const r = await call(h.url, '/v1/jobs', { key: b.sandbox, body: { emails: ['a@x.com', 'b@x.com', 'c@x.com', 'd@x.com'] } });
    expect(r.status).toBe(413);
    isProblem(r, 'job_too_large');
    const t = await call(h.url, '/v1/jobs', { key: b.sandbox, body: 'a@x.com', headers: { 'content-type': 'text/plain' } });
    expect(t.status).toBe(415);
    const huge = await call(h.url, '/v1/jobs', { key: b.sandbox, body: { emails: Array.from({ length: 60_000 }, (_, i) => `someone${i}@example.com`) } });
    expect(huge.status).toBe(413);
    isProblem(huge, 'job_too_large');
    const both = await call(h.url, '/v1/jobs', { key: b.sandbox, body: { emails: ['a@x.com'], items: [{ email: 'b@x.com' }] } });
    isProblem(both, 'validation_error');
  });
});

describe('limits', () => {
  it('429 rate_limited per account across keys, with Retry-After', async () => {
    const b = await h.account({ limits: { requestsPerMinute: 3 } });
    for (const key of [b.live, b.sandbox, b.live]) expect((await call(h.url, '/v1/status', { key })).status).toBe(200);
    const r = await call(h.url, '/v1/status', { key: b.sandbox });
    expect(r.status).toBe(429);
    isProblem(r, 'rate_limited');
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('429 daily_cap_reached for live emails; sandbox uncounted', async () => {
    const b = await h.account({ limits: { emailsPerDay: 2 } });
    expect((await call(h.url, '/v1/jobs', { key: b.sandbox, body: { emails: ['a@x.com', 'b@x.com', 'c@x.com'] } })).status).toBe(202);
    expect((await call(h.url, '/v1/jobs', { key: b.live, body: { emails: ['a@x.com', 'b@x.com'] } })).status).toBe(202);
    const r = await call(h.url, '/v1/verify', { key: b.live, body: { email: 'c@x.com', wait: 0 } });
    expect(r.status).toBe(429);
    isProblem(r, 'daily_cap_reached');
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
    const acc = await call(h.url, '/v1/account', { key: b.live });
    expect(acc.body.limits).toMatchObject({ emails_per_day: 2, emails_used_today: 2 });
  });

  it('429 too_many_active_jobs and too_many_in_flight', async () => {
    const b = await h.account({ limits: { concurrentJobs: 1, singleChecksInFlight: 1 } });
    h.scheduler!.hold(true);
    try {
      expect((await call(h.url, '/v1/jobs', { key: b.sandbox, body: { emails: ['a@x.com'] } })).status).toBe(202);
      const r = await call(h.url, '/v1/jobs', { key: b.sandbox, body: { emails: ['b@x.com'] } });
      expect(r.status).toBe(429);
      isProblem(r, 'too_many_active_jobs');
      expect((await call(h.url, '/v1/verify', { key: b.sandbox, body: { email: 'a@x.com', wait: 0 } })).status).toBe(202);
      const s = await call(h.url, '/v1/verify', { key: b.sandbox, body: { email: 'b@x.com', wait: 0 } });
      expect(s.status).toBe(429);
      isProblem(s, 'too_many_in_flight');
    } finally {
      h.scheduler!.hold(false);
    }
    // Once the scheduler finishes them, slots free up again (rebuilt from MongoDB).
    await new Promise((r) => setTimeout(r, 1_500));
    expect((await call(h.url, '/v1/jobs', { key: b.sandbox, body: { emails: ['c@x.com'] } })).status).toBe(202);
  });
});

describe('reads', () => {
  it('GET /v1/lookup returns the latest stored result; 404 otherwise', async () => {
    await call(h.url, '/v1/verify', { key: a.sandbox, body: { email: 'look.disposable@example.com', wait: 10 } });
    const r = await call(h.url, '/v1/lookup?email=look.disposable@EXAMPLE.com&fields=status,sub_status', { key: a.sandbox });
    expect(r.status).toBe(200);
    expect(r.body.result).toEqual({ status: 'risky', sub_status: 'disposable' });
    isProblem(await call(h.url, '/v1/lookup?email=never@example.com', { key: a.sandbox }), 'not_found');
    isProblem(await call(h.url, '/v1/lookup', { key: a.sandbox }), 'validation_error');
  });

  it('GET /v1/lookup keeps live and sandbox results apart and matches the address in any case', async () => {
    const b = await h.account({ credits: 10 });
    const sbx = await call(h.url, '/v1/verify', { key: b.sandbox, body: { email: 'Mixed.Case@Example.com', wait: 10 } });
    expect(sbx.status).toBe(200);
    // A sandbox answer never shows through the live key of the same account.
    isProblem(await call(h.url, '/v1/lookup?email=mixed.case@example.com', { key: b.live }), 'not_found');
    const seenBySandbox = await call(h.url, '/v1/lookup?email=MIXED.CASE@example.COM', { key: b.sandbox });
    expect(seenBySandbox.status).toBe(200);
    expect(seenBySandbox.body.result.email).toBe('Mixed.Case@example.com');

    const live = await call(h.url, '/v1/verify', { key: b.live, body: { email: 'only.live@example.com', wait: 10 } });
    expect(live.status).toBe(200);
    isProblem(await call(h.url, '/v1/lookup?email=only.live@example.com', { key: b.sandbox }), 'not_found');
    expect((await call(h.url, '/v1/lookup?email=Only.Live@example.com', { key: b.live })).status).toBe(200);

    // Both modes checked the same address: each key reads its own job's result.
    const liveJob = (await call(h.url, '/v1/verify', { key: b.live, body: { email: 'both@example.com', wait: 0 } })).body.job_id as string;
    const sandboxJob = (await call(h.url, '/v1/verify', { key: b.sandbox, body: { email: 'BOTH@example.com', wait: 0 } })).body.job_id as string;
    for (const [key, job] of [[b.live, liveJob], [b.sandbox, sandboxJob]] as const) {
      let r = await call(h.url, '/v1/lookup?email=both@example.com', { key });
      for (let i = 0; i < 50 && (r.status !== 200 || r.body.job_id !== job); i++) {
        await new Promise((res) => setTimeout(res, 100));
        r = await call(h.url, '/v1/lookup?email=both@example.com', { key });
      }
      expect(r.body.job_id).toBe(job);
    }
  });

  it('GET /v1/events: every finished job once, in order, with a cursor', async () => {
    const b = await h.account();
    const j1 = await call(h.url, '/v1/verify', { key: b.sandbox, body: { email: 'e1@example.com', wait: 10 } });
    expect(j1.status).toBe(200);
    const j2 = await call(h.url, '/v1/jobs', { key: b.sandbox, body: { emails: ['e2@example.com', 'e3@example.com'] } });
    await call(h.url, `/v1/jobs/${j2.body.job_id}?wait=20`, { key: b.sandbox });
    const p1 = await call(h.url, '/v1/events?after=0&limit=1', { key: b.sandbox });
    expect(p1.body.events).toHaveLength(1);
    expect(p1.body.events[0]).toMatchObject({ type: 'job.completed', data: { result: expect.any(Object) } });
    expect(p1.body.has_more).toBe(true);
    const p2 = await call(h.url, `/v1/events?after=${p1.body.next_cursor}`, { key: b.sandbox });
    expect(p2.body.events.map((e: { job_id: string }) => e.job_id)).toEqual([j2.body.job_id]);
    const p3 = await call(h.url, `/v1/events?after=${p2.body.next_cursor}`, { key: b.sandbox });
    expect(p3.body).toMatchObject({ events: [], next_cursor: p2.body.next_cursor });
    isProblem(await call(h.url, '/v1/events?limit=501', { key: b.sandbox }), 'validation_error');
  });

  it('GET /v1/account: plan, credits, limits, key info, webhook secret', async () => {
    const r = await call(h.url, '/v1/account', { key: a.sandbox });
    expect(r.body).toMatchObject({ plan: 'business', credits: { balance: expect.any(Number) }, limits: { requests_per_minute: 120, emails_per_job: 10_000, concurrent_jobs: 3, single_checks_in_flight: 200 }, webhook_secret: expect.stringMatching(/^whsec_/) });
    expect(a.sandbox.startsWith(r.body.key.prefix)).toBe(true);
    expect(JSON.stringify(r.body)).not.toContain(a.sandbox);
  });

  it('GET /v1/status: fallback figures, then the scheduler figures from the LOAD bucket', async () => {
    // The fake scheduler answers the single checks earlier tests queued; on a loaded machine some
    // may still wait, and four waiting singles make the fallback say busy (load-fallback.test.ts).
    const jsm = await jetstreamManager(h.nc);
    const single = CONSUMERS.find((c) => c.stream === 'VERIFY' && c.filterSubject.endsWith('single'))!;
    await until(async () => {
      const info = await jsm.consumers.info(single.stream, single.durable);
      return info.num_pending + info.num_ack_pending === 0;
    }, 30_000, 'earlier single checks answered');
    const r = await call(h.url, '/v1/status', { key: a.sandbox });
    expect(r.body).toMatchObject({ load: 'normal', source: 'fallback', queue: { depth: expect.any(Number) }, advice: expect.any(String) });
    const kv = await new Kvm(h.nc).open(KV_BUCKETS[0]!.bucket);
    await kv.put('scheduler-1', JSON.stringify({ load: 'busy', queue: { single: 40, list: 900 }, throughput_per_s: 12, probe_capacity: { total: 10, in_use: 9 }, seconds_per_single: 9, seconds_per_1000: 300, at: new Date().toISOString() }));
    await new Promise((res) => setTimeout(res, 300));
    const s = await call(h.url, '/v1/status', { key: a.sandbox });
    expect(s.body).toMatchObject({ load: 'busy', source: 'scheduler', queue: { single: 40, list: 900, depth: 940 }, seconds_per_single: 9 });
    await kv.delete('scheduler-1');
  });
});

describe('the one error model', () => {
  it('404 unknown routes, 405 wrong methods, 400 malformed JSON, 415, 422 bad query', async () => {
    const nf = await call(h.url, '/v1/nope');
    expect(nf.status).toBe(404);
    isProblem(nf, 'not_found');
    const m = await call(h.url, '/v1/verify', { method: 'GET', key: a.sandbox });
    expect(m.status).toBe(405);
    expect(m.headers.get('allow')).toBe('POST');
    isProblem(m, 'method_not_allowed');
    const bad = await call(h.url, '/v1/verify', { key: a.sandbox, body: '{"email":', headers: { 'content-type': 'application/json' } });
    expect(bad.status).toBe(400);
    isProblem(bad, 'invalid_request');
    const form = await call(h.url, '/v1/verify', { key: a.sandbox, body: 'email=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    isProblem(form, 'unsupported_media_type');
    const q = await call(h.url, '/v1/jobs/job_01m80dbqat1jtnsfaxsce0tkew/results?limit=0&format=xml', { key: a.sandbox });
    expect(q.status).toBe(422);
    expect(q.body.detail.map((d: { loc: string[] }) => d.loc.join('.')).sort()).toEqual(['query.format', 'query.limit']);
    isProblem(await call(h.url, '/v1/jobs/not-a-job', { key: a.sandbox }), 'not_found');
  });
});
