// Failures mid-job: a probe node killed mid-batch, a scheduler replica killed mid-job, NATS
// restarted mid-job. Each time every item ends exactly once (done == total, no duplicate result,
// one event). Plus deadlines: leftovers end unknown/deadline and are refunded exactly once.
import { jetstreamManager } from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, getAccount } from '@dv/accounts';
import { COLLECTIONS, LEDGER_IDS, type JobDoc } from '@dv/contracts';
import type { WorldHandle } from '@dv/world';
import { startHarness, until, type Harness } from './testing/harness.ts';
import { createTestJob, itemsOf, publishItems, waitForJob } from './testing/jobs.ts';
import { startSchedulerWorld } from './testing/world.ts';

let t: Harness;
let world: WorldHandle;

beforeAll(async () => {
  t = await startHarness('resil');
  world = await startSchedulerWorld();
});
afterAll(async () => {
  await t?.stop();
  await world?.stop();
});

async function expectExactlyOnce(job: JobDoc): Promise<void> {
  const items = await itemsOf(t.db, job._id);
  expect(items.every((i) => i.state === 'done' && i.result !== null)).toBe(true);
  const final = (await t.db.collection<JobDoc>(COLLECTIONS.jobs.name).findOne({ _id: job._id }))!;
  expect(final.status).toBe('completed');
  expect(final.done).toBe(final.total);
  expect(Object.values(final.counts).reduce((a, b) => a + b, 0)).toBe(final.total);
  expect(await t.db.collection(COLLECTIONS.events.name).countDocuments({ job_id: job._id })).toBe(1);
}

/** Sessions of 4 RCPTs, one at a time: a job takes a few seconds, long enough to break something mid-way. */
const ONE_AT_A_TIME = { POLITE_MAX_SESSIONS: '1', POLITE_RCPTS_PER_SESSION: '4' };
const slow = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `u${from + i}@slow.test`);

describe('failures mid-job', () => {
  it('finishes a killed probe node’s addresses on another node', async () => {
    const nodes = { '127.0.0.1': await t.startProbe('k1', ['127.0.0.1'], world.env), '127.0.0.2': await t.startProbe('k2', ['127.0.0.2'], world.env) };
    const sched = await t.startScheduler({ ...world.env, ...ONE_AT_A_TIME });
    const { job } = await createTestJob(t.db, t.nc, slow(12));
    const host = world.hosts.get('mx.slow.test')!;
    const first = await until(() => host.sessions.find((s) => s.endedAtMs === undefined), 20_000, 'a session in flight');
    const victim = first.clientIp as keyof typeof nodes;
    nodes[victim].child.kill('SIGKILL');
    await waitForJob(t.db, job._id, 60_000);
    await expectExactlyOnce(job);
    const counts = (await t.db.collection<JobDoc>(COLLECTIONS.jobs.name).findOne({ _id: job._id }))!.counts;
    expect(counts.deliverable).toBe(12);
    await sched.stop();
    for (const n of Object.values(nodes)) await n.stop(2_000);
  }, 90_000);

  it('lets another replica finish the job of a killed scheduler replica', async () => {
    world.reset();
    await t.startProbe('r1', ['127.0.0.1'], world.env);
    // Short leases: the killed replica's session slot must free itself quickly (that is the point).
    const env = { ...world.env, ...ONE_AT_A_TIME, FETCH_BATCH: '5', MAX_ITEMS_IN_FLIGHT: '10', PROBE_SESSION_TIMEOUT_MS: '4000', PROBE_REQUEST_MARGIN_MS: '1000', SESSION_LEASE_MS: '5000' };
    const a = await t.startSchedulerProcess(env);
    await t.startSchedulerProcess(env);
    // Short ack_wait on this file's own NATS so the killed replica's messages come back quickly.
    const jsm = await jetstreamManager(t.nc);
    await jsm.consumers.update('VERIFY', 'scheduler-list', { ack_wait: nanos(4_000) });
    const { job } = await createTestJob(t.db, t.nc, slow(20, 100));
    await until(async () => ((await t.db.collection<JobDoc>(COLLECTIONS.jobs.name).findOne({ _id: job._id }))?.done ?? 0) > 0, 30_000, 'first results');
    a.child.kill('SIGKILL');
    await waitForJob(t.db, job._id, 90_000);
    await expectExactlyOnce(job);
  }, 120_000);

  it('completes a job across a NATS restart', async () => {
    const { job } = await createTestJob(t.db, t.nc, slow(12, 200));
    await until(async () => ((await t.db.collection<JobDoc>(COLLECTIONS.jobs.name).findOne({ _id: job._id }))?.done ?? 0) > 0, 30_000, 'first results');
    const nats = t.nats.servers.nats!;
    await nats.stop();
    await new Promise((r) => setTimeout(r, 500));
    await nats.start();
    await waitForJob(t.db, job._id, 90_000);
    await expectExactlyOnce(job);
  }, 120_000);
});

describe('deadline and cancel', () => {
  it('ends leftovers unknown/deadline at max_wall_seconds and refunds them exactly once', async () => {
    world.reset();
    const account = await createAccount(t.db, { name: 'Deadline', email: 'deadline@example.com', plan: 'business', credits: 100 });
    // Default ladder: the greylisted address waits 5 minutes, far beyond the 3 s deadline.
    // (greylist.test greylists every address before looking at mailboxes.)
    const { job } = await createTestJob(t.db, t.nc, ['user@greylist.test', 'other@greylist.test'], { accountId: account._id, maxWallSeconds: 3 });
    const done = await waitForJob(t.db, job._id, 30_000);
    expect(done.status).toBe('completed');
    expect(done.counts).toMatchObject({ deliverable: 0, unknown: 2 });
    expect(done.credits_refunded).toBe(2);
    const items = await itemsOf(t.db, job._id);
    for (const item of items) expect(item.result).toMatchObject({ status: 'unknown', sub_status: 'deadline' });
    // More sweeps later change nothing.
    await new Promise((r) => setTimeout(r, 1_000));
    expect((await getAccount(t.db, account._id)).credits).toBe(102);
    expect(await t.db.collection<{ _id: string }>(COLLECTIONS.creditLedger.name).countDocuments({ _id: LEDGER_IDS.refundDeadline(job._id) })).toBe(1);
    expect((await t.db.collection<JobDoc>(COLLECTIONS.jobs.name).findOne({ _id: job._id }))!.credits_refunded).toBe(2);
    expect(await t.db.collection(COLLECTIONS.events.name).countDocuments({ job_id: job._id })).toBe(1);
  });

  it('skips canceled items', async () => {
    const { job, items } = await createTestJob(t.db, t.nc, ['bob@acme.test'], { noPublish: true });
    await t.db.collection<JobDoc>(COLLECTIONS.jobs.name).updateOne({ _id: job._id }, { $set: { status: 'canceled' } });
    await t.db.collection(COLLECTIONS.jobItems.name).updateMany({ job_id: job._id }, { $set: { state: 'canceled' } });
    const before = world.hosts.get('mx1.acme.test')!.sessionsTotal;
    await publishItems(t.nc, job, items);
    await new Promise((r) => setTimeout(r, 1_500));
    expect((await itemsOf(t.db, job._id))[0]!.state).toBe('canceled');
    expect(world.hosts.get('mx1.acme.test')!.sessionsTotal).toBe(before);
    expect(await t.db.collection(COLLECTIONS.events.name).countDocuments({ job_id: job._id })).toBe(0);
  });
});
