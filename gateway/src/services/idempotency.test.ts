import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COLLECTIONS, type JobDoc } from '@dv/contracts';
import type { Account } from '@dv/accounts';
import { ApiError } from '@dv/runtime';
import { call, startGatewayHarness, type GatewayHarness } from '../testing/harness.ts';
import { Idempotency, type Reply } from './idempotency.ts';

// Idempotency-Key on every write: replays return the original response and never charge; a
// concurrent duplicate waits for the first; the same key with a different body is a 422.

let h: GatewayHarness;
beforeAll(async () => {
  h = await startGatewayHarness({ label: 'idem', scheduler: true });
});
afterAll(async () => h?.close());

const credits = async (id: string) => (await h.db.collection<Account>(COLLECTIONS.accounts.name).findOne({ _id: id }))!.credits;

describe('Idempotency-Key', () => {
  it('twenty concurrent identical job requests: one job, one charge, twenty identical answers', async () => {
    const a = await h.account({ credits: 100 });
    const key = randomUUID();
    const body = { emails: ['one@example.com', 'two@example.com', 'three@example.com'], label: 'idem' };
    const answers = await Promise.all(Array.from({ length: 20 }, () => call(h.url, '/v1/jobs', { key: a.live, body, headers: { 'idempotency-key': key } })));
    expect(answers.map((r) => r.status)).toEqual(Array(20).fill(202));
    expect(new Set(answers.map((r) => r.body.job_id)).size).toBe(1);
    expect(answers.filter((r) => r.headers.get('idempotent-replayed') === 'true')).toHaveLength(19);
    expect(await h.db.collection<JobDoc>(COLLECTIONS.jobs.name).countDocuments({ account_id: a.account._id })).toBe(1);
    expect(await credits(a.account._id)).toBe(97);
    expect(await h.db.collection(COLLECTIONS.creditLedger.name).countDocuments({ account_id: a.account._id, reason: 'charge' })).toBe(1);
  });

  it('a later replay returns the original status, headers and body and never charges', async () => {
    const a = await h.account({ credits: 10 });
    const key = randomUUID();
    const first = await call(h.url, '/v1/verify', { key: a.live, body: { email: 'replay@example.com', wait: 10 }, headers: { 'idempotency-key': key } });
    expect(first.status).toBe(200);
    const again = await call(h.url, '/v1/verify', { key: a.live, body: { email: 'replay@example.com', wait: 10 }, headers: { 'idempotency-key': key } });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await credits(a.account._id)).toBe(9);
    // 202s replay with their Retry-After too.
    h.scheduler!.hold(true);
    try {
      const k2 = randomUUID();
      const q = await call(h.url, '/v1/verify', { key: a.live, body: { email: 'queued@example.com', wait: 0 }, headers: { 'idempotency-key': k2 } });
      const q2 = await call(h.url, '/v1/verify', { key: a.live, body: { email: 'queued@example.com', wait: 0 }, headers: { 'idempotency-key': k2 } });
      expect(q.status).toBe(202);
      expect(q2.status).toBe(202);
      expect(q2.body.job_id).toBe(q.body.job_id);
      expect(q2.headers.get('retry-after')).toBe(q.headers.get('retry-after'));
    } finally {
      h.scheduler!.hold(false);
    }
    expect(await credits(a.account._id)).toBe(8);
  });

  it('the same key with a different body is 422 idempotency_key_reused; keys are per account', async () => {
    const a = await h.account();
    const key = randomUUID();
    expect((await call(h.url, '/v1/jobs', { key: a.sandbox, body: { emails: ['x@example.com'] }, headers: { 'idempotency-key': key } })).status).toBe(202);
    const r = await call(h.url, '/v1/jobs', { key: a.sandbox, body: { emails: ['y@example.com'] }, headers: { 'idempotency-key': key } });
    expect(r.status).toBe(422);
    expect(r.body.code).toBe('idempotency_key_reused');
    expect(r.headers.get('content-type')).toMatch(/problem\+json/);
    const other = await h.account();
    expect((await call(h.url, '/v1/jobs', { key: other.sandbox, body: { emails: ['y@example.com'] }, headers: { 'idempotency-key': key } })).status).toBe(202);
    const bad = await call(h.url, '/v1/jobs', { key: a.sandbox, body: { emails: ['y@example.com'] }, headers: { 'idempotency-key': 'x'.repeat(256) } });
    expect(bad.body.code).toBe('validation_error');
    expect(bad.body.detail[0].loc).toEqual(['header', 'Idempotency-Key']);
  });

  it('remembers client errors, not transient ones; DELETE replays too; kept 24 h', async () => {
    const a = await h.account({ credits: 0 });
    const key = randomUUID();
    const r1 = await call(h.url, '/v1/jobs', { key: a.live, body: { emails: ['x@example.com'] }, headers: { 'idempotency-key': key } });
    expect(r1.status).toBe(402);
    const r2 = await call(h.url, '/v1/jobs', { key: a.live, body: { emails: ['x@example.com'] }, headers: { 'idempotency-key': key } });
    expect(r2.status).toBe(402);
    expect(r2.headers.get('idempotent-replayed')).toBe('true');
    const ttl = await h.redis.ttl((await h.redis.keys(`${h.env.REDIS_KEY_PREFIX}idem:${a.account._id}:*`))[0]!);
    expect(ttl).toBeGreaterThan(24 * 3600 - 60);
    const job = await call(h.url, '/v1/jobs', { key: a.sandbox, body: { emails: ['x@example.com'] } });
    const k3 = randomUUID();
    h.scheduler!.hold(true);
    try {
      const d1 = await call(h.url, `/v1/jobs/${job.body.job_id}`, { method: 'DELETE', key: a.sandbox, headers: { 'idempotency-key': k3 } });
      const d2 = await call(h.url, `/v1/jobs/${job.body.job_id}`, { method: 'DELETE', key: a.sandbox, headers: { 'idempotency-key': k3 } });
      expect(d2.body).toEqual(d1.body);
    } finally {
      h.scheduler!.hold(false);
    }
  });

  it('a live key never gets a sandbox replay, nor the reverse', async () => {
    const a = await h.account({ credits: 10 });
    const key = randomUUID();
    const body = { email: 'mode.check@example.com', wait: 10 };
    const sandbox = await call(h.url, '/v1/verify', { key: a.sandbox, body, headers: { 'idempotency-key': key } });
    expect(sandbox.status).toBe(200);
    const live = await call(h.url, '/v1/verify', { key: a.live, body, headers: { 'idempotency-key': key } });
    expect(live.status).toBe(200);
    expect(live.headers.get('idempotent-replayed')).toBeNull();
    expect(live.body.result.job_id ?? live.body.result.email).toBeDefined();
    expect(await credits(a.account._id)).toBe(9);
    // Each mode still replays its own answer, and the live replay does not charge.
    const liveAgain = await call(h.url, '/v1/verify', { key: a.live, body, headers: { 'idempotency-key': key } });
    expect(liveAgain.headers.get('idempotent-replayed')).toBe('true');
    expect(liveAgain.body).toEqual(live.body);
    const sandboxAgain = await call(h.url, '/v1/verify', { key: a.sandbox, body, headers: { 'idempotency-key': key } });
    expect(sandboxAgain.headers.get('idempotent-replayed')).toBe('true');
    expect(sandboxAgain.body).toEqual(sandbox.body);
    expect(await credits(a.account._id)).toBe(9);

    // The reverse, on jobs: a live job first, then a sandbox request with the same key runs on its own.
    const k2 = randomUUID();
    const jobBody = { emails: ['mode.one@example.com', 'mode.two@example.com'] };
    const liveJob = await call(h.url, '/v1/jobs', { key: a.live, body: jobBody, headers: { 'idempotency-key': k2 } });
    expect(liveJob.status).toBe(202);
    expect(liveJob.body.credits_charged).toBe(2);
    const sandboxJob = await call(h.url, '/v1/jobs', { key: a.sandbox, body: jobBody, headers: { 'idempotency-key': k2 } });
    expect(sandboxJob.status).toBe(202);
    expect(sandboxJob.headers.get('idempotent-replayed')).toBeNull();
    expect(sandboxJob.body.job_id).not.toBe(liveJob.body.job_id);
    expect(sandboxJob.body.credits_charged).toBe(0);
    expect((await h.db.collection<JobDoc>(COLLECTIONS.jobs.name).findOne({ _id: sandboxJob.body.job_id }))?.mode).toBe('sandbox');
    expect(await credits(a.account._id)).toBe(7);
  });

  it('ten concurrent duplicates whose first request fails transiently get no 409: each a run or the same retryable answer', async () => {
    // One running job fills the account's only slot, so every run of the request is a 429
    // too_many_active_jobs: not kept, and what each duplicate gets must be retryable too.
    const a = await h.account({ limits: { concurrentJobs: 1 } });
    h.scheduler!.hold(true);
    try {
      const blocker = await call(h.url, '/v1/jobs', { key: a.sandbox, body: { emails: ['blocker@example.com'] } });
      expect(blocker.status).toBe(202);
      const key = randomUUID();
      const body = { emails: ['dup.one@example.com', 'dup.two@example.com'] };
      const answers = await Promise.all(Array.from({ length: 10 }, () => call(h.url, '/v1/jobs', { key: a.sandbox, body, headers: { 'idempotency-key': key } })));
      for (const r of answers) {
        expect(r.status).toBe(429);
        expect(r.body.code).toBe('too_many_active_jobs');
        expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
      }
      // Once the slot is free, the same key really runs (nothing was kept).
      expect((await call(h.url, `/v1/jobs/${blocker.body.job_id}`, { method: 'DELETE', key: a.sandbox })).status).toBe(200);
      const after = await call(h.url, '/v1/jobs', { key: a.sandbox, body, headers: { 'idempotency-key': key } });
      expect(after.status).toBe(202);
      expect(after.headers.get('idempotent-replayed')).toBeNull();
    } finally {
      h.scheduler!.hold(false);
    }
  }, 30_000);
});

describe('Idempotency.run (on the real Redis)', () => {
  const scope = { account: { _id: 'acct_unit' }, mode: 'live' as const };
  const make = () => new Idempotency({ redis: h.redis, prefix: `${h.env.REDIS_KEY_PREFIX}unit_${randomUUID()}:`, ttlSeconds: 60, pendingTtlSeconds: 30, pollMs: 10 });

  it('when the first of ten duplicates fails transiently, one waiting duplicate runs the request and the rest replay its answer', async () => {
    const idem = make();
    let runs = 0;
    const work = async (): Promise<Reply> => {
      const n = ++runs;
      await new Promise((r) => setTimeout(r, 50));
      if (n === 1) throw new ApiError('service_unavailable', 'MongoDB is away', {}, { 'Retry-After': '2' });
      return { status: 202, body: { run: n } };
    };
    const settled = await Promise.allSettled(Array.from({ length: 10 }, () => idem.run(scope, 'k1', 'fp', work)));
    const failed = settled.filter((s) => s.status === 'rejected').map((s) => (s as PromiseRejectedResult).reason as ApiError);
    const replies = settled.filter((s) => s.status === 'fulfilled').map((s) => (s as PromiseFulfilledResult<Reply>).value);
    expect(runs).toBe(2);
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ status: 503, headers: { 'Retry-After': '2' } });
    expect(replies).toHaveLength(9);
    expect(replies.every((r) => r.status === 202 && (r.body as { run: number }).run === 2)).toBe(true);
    expect(replies.filter((r) => r.headers?.['Idempotent-Replayed'] === 'true')).toHaveLength(8);
  });

  it('a duplicate that stops waiting while the first still runs gets 503 with Retry-After (retryable), never 409', async () => {
    const idem = make();
    let release!: () => void;
    const first = idem.run(scope, 'k2', 'fp', () => new Promise<Reply>((r) => (release = () => r({ status: 200, body: { ok: true } }))));
    await new Promise((r) => setTimeout(r, 30));
    const gone = await idem.run(scope, 'k2', 'fp', async () => ({ status: 200, body: { ok: 'second' } }), AbortSignal.abort()).catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(ApiError);
    expect(gone).toMatchObject({ status: 503, code: 'service_unavailable', headers: { 'Retry-After': expect.any(String) } });
    release();
    expect(await first).toEqual({ status: 200, body: { ok: true } });
    // Another mode with the same key is a different request, even while this one is kept.
    const sandbox = await idem.run({ ...scope, mode: 'sandbox' }, 'k2', 'fp', async () => ({ status: 200, body: { ok: 'sandbox' } }));
    expect(sandbox).toEqual({ status: 200, body: { ok: 'sandbox' } });
  });
});

