// Intake and the storing path end to end with sandbox items: results, counters, latest results,
// completion once, events in order with a monotonic per-account seq, verify.done on core NATS.
import { jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COLLECTIONS, SUBJECTS, latestResultId, loadFigures, verifyDoneMessage, type EventDoc, type LatestResultDoc, type VerifyDoneMessage } from '@dv/contracts';
import { createTestJob, itemsOf, publishItems, waitForJob } from './testing/jobs.ts';
import { startHarness, until, type Harness } from './testing/harness.ts';

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
    const latest = await t.db.collection<LatestResultDoc>(COLLECTIONS.latestResults.name).findOne({ _id: latestResultId('acc_sbx', 'anna@example.com') });
    expect(latest?.result.status).toBe('deliverable');
    // Sandbox answers never reach the shared cache.
    expect(await t.db.collection(COLLECTIONS.verificationCache.name).countDocuments({})).toBe(0);
    const events = await t.db.collection<EventDoc>(COLLECTIONS.events.name).find({ job_id: job._id }).toArray();
    expect(events).toHaveLength(1);
    expect(events[0]!.data).toMatchObject({ kind: 'list', mode: 'sandbox', total: 7, decisions: { send: 1, review: 2, drop: 4 }, results_url: `/v1/jobs/${job._id}/results` });
    await new Promise((r) => setTimeout(r, 200));
    expect(done.filter((d) => d.job_id === job._id)).toContainEqual({ job_id: job._id, kind: 'job', status: 'completed' });
    sub.unsubscribe();
    // Held messages are acked by reply subject (held.ts): every message acked, none redelivered.
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

  it('publishes load figures to the LOAD bucket every interval', async () => {
    const kv = await new Kvm(t.nc).open('LOAD');
    const entry = await until(async () => kv.get('current'), 10_000, 'load figures');
    const figures = loadFigures.parse(entry.json());
    expect(figures.load).toBe('saturated'); // no probe node in this file: nothing could be probed
    expect(figures.queue).toEqual({ single: 0, list: 0 });
    expect(Date.now() - Date.parse(figures.at)).toBeLessThan(5_000);
  });
});
