// Intake and the storing path end to end with sandbox items: results, counters, latest results,
// completion once, events in order with a monotonic per-account seq, verify.done on core NATS.
import { jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COLLECTIONS, SUBJECTS, latestResultId, loadFigures, verifyDoneMessage, type EventDoc, type LatestResultDoc, type VerifyDoneMessage } from '@dv/contracts';
import { createTestJob, itemsOf, publishItems, waitForJob } from '../testing/jobs.ts';
import { startHarness, until, type Harness } from '../testing/harness.ts';

let t: Harness;

beforeAll(async () => {
  t = await startHarness('sandbox');
  await t.startScheduler();
});
afterAll(async () => {
  await t?.stop();
});

describe('sandbox items through the same storing path', () => {
  it('answers a list from the sandbox table, counts, completes once, records the event and wakes long-polls', async () => {
    const done: VerifyDoneMessage[] = [];
    const sub = t.nc.subscribe(SUBJECTS.verifyDoneAll, { callback: (_e, m) => void done.push(verifyDoneMessage.parse(m.json())) });
    const emails = ['anna@example.com', 'x.invalid@example.com', 'catchall@example.com', 'unknown1@example.com', 'full@example.com', 'disposable@example.com', 'not an address'];
    const { job } = await createTestJob(t.db, t.nc, emails, { mode: 'sandbox', accountId: 'acc_sbx' });
    const finished = await waitForJob(t.db, job._id);
    expect(finished.status).toBe('completed');
    expect(finished.done).toBe(emails.length);
    expect(finished.counts).toEqual({ deliverable: 1, undeliverable: 2, risky: 3, unknown: 1 });
    const items = await itemsOf(t.db, job._id);
    expect(items.map((i) => [i.state, i.result?.sub_status])).toEqual([
      ['done', 'mailbox_confirmed'],
      ['done', 'mailbox_absent'],
      ['done', 'catch_all'],
      ['done', 'no_signal'],
      ['done', 'mailbox_full'],
      ['done', 'disposable'],
      ['done', 'syntax'],
    ]);
    expect(items[0]!.result!.ref).toBe('ref-0');
    const latest = await t.db.collection<LatestResultDoc>(COLLECTIONS.latestResults.name).findOne({ _id: latestResultId('acc_sbx', 'sandbox', 'anna@example.com') });
    expect(latest?.result.status).toBe('deliverable');
    expect(latest?.mode).toBe('sandbox');
    // Stored under the sandbox mode only: a live key's lookup of the same account finds nothing.
    expect(await t.db.collection<LatestResultDoc>(COLLECTIONS.latestResults.name).countDocuments({ _id: latestResultId('acc_sbx', 'live', 'anna@example.com') })).toBe(0);
    // Sandbox answers never reach the shared cache.
    expect(await t.db.collection(COLLECTIONS.verificationCache.name).countDocuments({})).toBe(0);
    const events = await t.db.collection<EventDoc>(COLLECTIONS.events.name).find({ job_id: job._id }).toArray();
    expect(events).toHaveLength(1);
    expect(events[0]!.data).toMatchObject({ kind: 'list', mode: 'sandbox', total: 7, decisions: { send: 1, review: 2, drop: 4 }, results_url: `/v1/jobs/${job._id}/results` });
    await new Promise((r) => setTimeout(r, 200));
    expect(done.filter((d) => d.job_id === job._id)).toContainEqual({ job_id: job._id, kind: 'job', status: 'completed' });
    sub.unsubscribe();
    // Held messages are acked by reply subject (held-item.ts): every message acked, none redelivered.
    const consumer = await (await jetstreamManager(t.nc)).consumers.info('VERIFY', 'scheduler-list');
    expect(consumer.num_ack_pending).toBe(0);
    expect(consumer.num_redelivered).toBe(0);
    expect(consumer.num_pending).toBe(0);
  });

  it('single checks carry the result inline; events get consecutive seqs; a replay changes nothing', async () => {
    const a = await createTestJob(t.db, t.nc, ['bob@example.com'], { mode: 'sandbox', accountId: 'acc_seq', kind: 'single' });
    await waitForJob(t.db, a.job._id);
    const b = await createTestJob(t.db, t.nc, ['carol.catchall@example.com'], { mode: 'sandbox', accountId: 'acc_seq', kind: 'single' });
    await waitForJob(t.db, b.job._id);
    const c = await createTestJob(t.db, t.nc, ['dan@example.com', 'eve@example.com'], { mode: 'sandbox', accountId: 'acc_seq' });
    await waitForJob(t.db, c.job._id);
    const events = await t.db.collection<EventDoc>(COLLECTIONS.events.name).find({ account_id: 'acc_seq' }).sort({ seq: 1 }).toArray();
    expect(events.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(events.map((e) => e.job_id)).toEqual([a.job._id, b.job._id, c.job._id]);
    expect((events[0]!.data.result as { status: string }).status).toBe('deliverable');
    expect((events[1]!.data.result as { sub_status: string }).sub_status).toBe('catch_all');

    // Republishing the items under new message ids (a replay beyond the duplicate window) stores nothing twice.
    await publishItems(t.nc, { ...c.job }, (await itemsOf(t.db, c.job._id)).map((i) => ({ ...i, _id: `${i._id}:replay` })));
    await new Promise((r) => setTimeout(r, 1_000));
    const job = await waitForJob(t.db, c.job._id);
    expect(job.done).toBe(2);
    expect(job.counts.deliverable).toBe(2);
    expect(await t.db.collection(COLLECTIONS.events.name).countDocuments({ account_id: 'acc_seq' })).toBe(3);
  });

  it('a repeat with max_age_days is served from the stored sandbox result with cached: true, never from or into the live cache', async () => {
    const first = await createTestJob(t.db, t.nc, ['Repeat.Catchall@example.com'], { mode: 'sandbox', accountId: 'acc_rep', kind: 'single' });
    await waitForJob(t.db, first.job._id);
    const [stored] = await itemsOf(t.db, first.job._id);
    expect(stored!.result).toMatchObject({ sub_status: 'catch_all', cached: false });

    // Same address in another case, allowed a day of age: the stored answer, marked cached, keeping its check time.
    const again = await createTestJob(t.db, t.nc, ['repeat.catchall@example.com'], { mode: 'sandbox', accountId: 'acc_rep', kind: 'single', maxAgeDays: 1 });
    await waitForJob(t.db, again.job._id);
    const [served] = await itemsOf(t.db, again.job._id);
    expect(served!.result).toMatchObject({ email: 'repeat.catchall@example.com', ref: 'ref-0', sub_status: 'catch_all', cached: true, checked_at: stored!.result!.checked_at });

    // Without max_age_days, or with force_fresh, the table answers afresh.
    const plain = await createTestJob(t.db, t.nc, ['repeat.catchall@example.com'], { mode: 'sandbox', accountId: 'acc_rep', kind: 'single' });
    const forced = await createTestJob(t.db, t.nc, ['repeat.catchall@example.com'], { mode: 'sandbox', accountId: 'acc_rep', kind: 'single', maxAgeDays: 1, forceFresh: true });
    await waitForJob(t.db, plain.job._id);
    await waitForJob(t.db, forced.job._id);
    expect((await itemsOf(t.db, plain.job._id))[0]!.result!.cached).toBe(false);
    expect((await itemsOf(t.db, forced.job._id))[0]!.result!.cached).toBe(false);

    // Another account, or a stored result older than max_age_days, is not served.
    const other = await createTestJob(t.db, t.nc, ['repeat.catchall@example.com'], { mode: 'sandbox', accountId: 'acc_rep_other', kind: 'single', maxAgeDays: 1 });
    await waitForJob(t.db, other.job._id);
    expect((await itemsOf(t.db, other.job._id))[0]!.result!.cached).toBe(false);
    const old = new Date(Date.now() - 3 * 86_400_000);
    await t.db.collection<LatestResultDoc>(COLLECTIONS.latestResults.name).updateOne({ _id: latestResultId('acc_rep', 'sandbox', 'repeat.catchall@example.com') }, { $set: { checked_at: old } });
    const stale = await createTestJob(t.db, t.nc, ['repeat.catchall@example.com'], { mode: 'sandbox', accountId: 'acc_rep', kind: 'single', maxAgeDays: 2 });
    await waitForJob(t.db, stale.job._id);
    expect((await itemsOf(t.db, stale.job._id))[0]!.result!.cached).toBe(false);

    // An `unknown` sandbox answer is not served again, as the live cache keeps none.
    const u1 = await createTestJob(t.db, t.nc, ['who.unknown@example.com'], { mode: 'sandbox', accountId: 'acc_rep', kind: 'single' });
    await waitForJob(t.db, u1.job._id);
    const u2 = await createTestJob(t.db, t.nc, ['who.unknown@example.com'], { mode: 'sandbox', accountId: 'acc_rep', kind: 'single', maxAgeDays: 1 });
    await waitForJob(t.db, u2.job._id);
    expect((await itemsOf(t.db, u2.job._id))[0]!.result!.cached).toBe(false);

    // The stored sandbox result never becomes a live cache entry.
    expect(await t.db.collection(COLLECTIONS.verificationCache.name).countDocuments({})).toBe(0);
  });

  it('publishes load figures to the LOAD bucket every interval', async () => {
    const kv = await new Kvm(t.nc).open('LOAD');
    // The previous test's last ack may still be pending in the first figures: wait for the drained queue.
    const figures = await until(
      async () => {
        const entry = await kv.get('current');
        const f = entry ? loadFigures.parse(entry.json()) : null;
        return f && f.queue.single === 0 && f.queue.list === 0 ? f : null;
      },
      10_000,
      'load figures of an empty queue',
    );
    // No probe node in this file: nothing could be probed, and the figures say so.
    expect(figures).toMatchObject({ load: 'saturated', reason: 'no_probe_capacity', seconds_per_single: null });
    expect(Date.now() - Date.parse(figures.at)).toBeLessThan(5_000);
  });
});
