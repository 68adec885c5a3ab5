import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COLLECTIONS, type JobDoc } from '@dv/contracts';
import type { Account } from '@dv/accounts';
import { call, startGatewayHarness, type GatewayHarness } from '../testing/harness.ts';

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
});
