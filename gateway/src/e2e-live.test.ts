import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COLLECTIONS, type JobItemDoc } from '@dv/contracts';
import { call, startGatewayHarness, type GatewayHarness, type TestAccount } from './testing/harness.ts';
import { startLiveStack, until, type LiveStack } from './testing/live-stack.ts';

// The live paths of the API against the real scheduler and a probe node on the simulated internet
// (the fake scheduler answers live items from the sandbox table, which hides what probing does to
// verdicts, charges, refunds and the cache): every verdict comes from an SMTP session, every
// credit moves once.

let h: GatewayHarness;
let live: LiveStack;

beforeAll(async () => {
  h = await startGatewayHarness({ label: 'e2elive' });
  live = await startLiveStack(h, {
    label: 'e2elive',
    records: [
      { name: 'slowbox.test', type: 'MX', priority: 10, exchange: 'mx.slowbox.test', ttl: 300 },
      { name: 'mx.slowbox.test', type: 'A', address: '127.0.9.60', ttl: 300 },
    ],
    // Slow enough that a cancel lands while most of a list is still waiting.
    hosts: [{ name: 'mx.slowbox.test', ip: '127.0.9.60', mailboxes: Array.from({ length: 30 }, (_, i) => `u${i}@slowbox.test`), behaviour: { tarpitMs: 400 } }],
    schedulerEnv: { POLITE_MAX_SESSIONS: '1', POLITE_RCPTS_PER_SESSION: '2' },
  });
}, 180_000);

afterAll(async () => {
  await live?.stop();
  await h?.close();
}, 60_000);

async function balance(key: string): Promise<number> {
  return (await call(h.url, '/v1/account', { key })).body.credits.balance as number;
}

async function finished(key: string, jobId: string): Promise<Record<string, unknown>> {
  return until(async () => {
    const j = await call(h.url, `/v1/jobs/${jobId}?wait=10`, { key });
    return j.body.status !== 'running' ? (j.body as Record<string, unknown>) : null;
  }, 60_000, `job ${jobId} finished`);
}

describe('live checks through the real scheduler', () => {
  let a: TestAccount;
  beforeAll(async () => {
    a = await h.account({ credits: 100 });
  });

  it('single checks: verdicts from the SMTP session, 1 credit each, syntax-invalid free', async () => {
    const cases: Array<[string, string, string]> = [
      ['alice@acme.test', 'deliverable', 'mailbox_confirmed'],
      ['nobody@acme.test', 'undeliverable', 'mailbox_absent'],
      ['info@catchall.test', 'risky', 'catch_all'],
      ['x@nullmx.test', 'undeliverable', 'domain_absent'],
    ];
    for (const [email, status, sub] of cases) {
      const r = await call(h.url, '/v1/verify', { key: a.live, body: { email, wait: 25 } });
      expect(r.status, email).toBe(200);
      expect(r.body.result, email).toMatchObject({ email, status, sub_status: sub, cached: false });
    }
    const bad = await call(h.url, '/v1/verify', { key: a.live, body: { email: 'not an address', wait: 5 } });
    expect(bad.body.result).toMatchObject({ status: 'undeliverable', sub_status: 'syntax' });
    expect(await balance(a.live)).toBe(100 - cases.length);
  });

  it('a repeat with max_age_days is served from the live cache, free; the sandbox key never sees it', async () => {
    const before = await balance(a.live);
    const again = await call(h.url, '/v1/verify', { key: a.live, body: { email: 'alice@acme.test', max_age_days: 1, wait: 25 } });
    expect(again.body.result).toMatchObject({ status: 'deliverable', cached: true });
    expect(await balance(a.live)).toBe(before);
    const look = await call(h.url, '/v1/lookup?email=ALICE@acme.test', { key: a.live });
    expect(look.body.result).toMatchObject({ status: 'deliverable', sub_status: 'mailbox_confirmed' });
    expect((await call(h.url, '/v1/lookup?email=alice@acme.test', { key: a.sandbox })).status).toBe(404);
  });

  it('a list job: deduplicated, charged once per unique address, completed with the probed verdicts', async () => {
    const before = await balance(a.live);
    const emails = ['bob@acme.test', 'BOB@acme.test', 'ghost@acme.test', 'user@noverify.test', 'user@aonly.test'];
    const created = await call(h.url, '/v1/jobs', { key: a.live, body: { emails, label: 'live list' } });
    expect(created.status).toBe(202);
    expect(created.body).toMatchObject({ accepted: 4, duplicates_removed: 1, credits_charged: 4 });
    const job = await finished(a.live, created.body.job_id);
    expect(job).toMatchObject({ status: 'completed', done: 4, total: 4, counts: { deliverable: 2, undeliverable: 1, risky: 0, unknown: 1 }, credits_refunded: 0, eta_seconds: null });
    const results = await call(h.url, `/v1/jobs/${created.body.job_id}/results?fields=email,status,sub_status`, { key: a.live });
    expect(results.body.results).toEqual([
      { email: 'bob@acme.test', status: 'deliverable', sub_status: 'mailbox_confirmed' },
      { email: 'ghost@acme.test', status: 'undeliverable', sub_status: 'mailbox_absent' },
      { email: 'user@noverify.test', status: 'unknown', sub_status: 'no_signal' },
      { email: 'user@aonly.test', status: 'deliverable', sub_status: 'mailbox_confirmed' },
    ]);
    expect(await balance(a.live)).toBe(before - 4);
  });

  it('cancel mid-list: what was not probed is refunded exactly once, what was probed keeps its verdict', async () => {
    const b = await h.account({ credits: 50 });
    const emails = Array.from({ length: 30 }, (_, i) => `u${i}@slowbox.test`);
    const created = await call(h.url, '/v1/jobs', { key: b.live, body: { emails } });
    expect(created.body.credits_charged).toBe(30);
    const id = created.body.job_id as string;
    // Let a session or two finish first.
    await until(async () => ((await call(h.url, `/v1/jobs/${id}`, { key: b.live })).body.done as number) >= 2, 30_000, 'some items done');
    const canceled = await call(h.url, `/v1/jobs/${id}`, { key: b.live, method: 'DELETE' });
    expect(canceled.body.status).toBe('canceled');
    const refunded = canceled.body.credits_refunded as number;
    expect(refunded).toBeGreaterThan(0);
    expect(refunded).toBeLessThan(30);
    // Sessions in flight at the cancel may still store their results; none is refunded twice,
    // and the balance is charge minus refund, whatever happens after.
    await new Promise((r) => setTimeout(r, 3_000));
    const again = await call(h.url, `/v1/jobs/${id}`, { key: b.live, method: 'DELETE' });
    expect(again.body.credits_refunded).toBe(refunded);
    expect(await balance(b.live)).toBe(50 - 30 + refunded);
    const items = await h.db.collection<JobItemDoc>(COLLECTIONS.jobItems.name).find({ job_id: id }).toArray();
    const canceledItems = items.filter((i) => i.state === 'canceled');
    expect(canceledItems).toHaveLength(refunded);
    expect(canceledItems.every((i) => i.result === null)).toBe(true);
    expect(items.filter((i) => i.state === 'done').every((i) => i.result?.status === 'deliverable')).toBe(true);
  });
});
