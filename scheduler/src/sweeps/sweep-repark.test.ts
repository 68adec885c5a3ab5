// A parked item parked again without a new attempt (a provider pause, no probe capacity) goes back
// onto JetStream every time it is due, not only the first: each park has its own message id, while
// two replicas sweeping the same park still publish one message. Real NATS and MongoDB.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { jetstreamManager } from '@nats-io/jetstream';
import { COLLECTIONS, type JobItemDoc } from '@dv/contracts';
import { createLogger } from '@dv/runtime';
import { schedulerConfigSchema } from '../config.ts';
import { createSchedulerMetrics } from '../metrics.ts';
import { ResultStore } from '../store/store.ts';
import { Sweeper, retryMsgId } from './sweep.ts';
import { FAST_ENV, startHarness, type Harness } from '../testing/harness.ts';
import { createTestJob } from '../testing/jobs.ts';

let t: Harness;
const log = createLogger('scheduler', 'silent');

beforeAll(async () => {
  t = await startHarness('repark');
}, 120_000);
afterAll(async () => {
  await t?.stop();
});

function sweeper(): Sweeper {
  const config = schedulerConfigSchema.parse({ ...FAST_ENV, ...t.env });
  const metrics = createSchedulerMetrics(new Registry());
  return new Sweeper({ nc: t.nc, db: t.db, config, log, store: new ResultStore({ db: t.db, nc: t.nc, log, metrics, cacheRetentionDays: 30 }), metrics });
}

async function messagesOn(subject: string): Promise<number> {
  const info = await (await jetstreamManager(t.nc)).streams.info('VERIFY', { subjects_filter: subject });
  return info.state.subjects?.[subject] ?? 0;
}

const items = () => t.db.collection<JobItemDoc>(COLLECTIONS.jobItems.name);

async function park(id: string, dueAt: Date): Promise<void> {
  await items().updateOne({ _id: id }, { $set: { state: 'waiting_retry', attempts: 0, next_attempt_at: dueAt } });
}

describe('parked items going back to the queue', () => {
  it('every park of an item publishes its message, also with the same attempt count inside the duplicate window', async () => {
    const { job, items: [item] } = await createTestJob(t.db, t.nc, ['repark@example.com'], { noPublish: true, kind: 'list' });
    const subject = `verify.item.${job.kind}`;
    const before = await messagesOn(subject);
    await park(item!._id, new Date(Date.now() - 2_000));
    // Two replicas sweep the same park: one message.
    await Promise.all([sweeper().retries(), sweeper().retries()]);
    expect(await messagesOn(subject)).toBe(before + 1);
    expect((await items().findOne({ _id: item!._id }))!.state).toBe('queued');
    // Parked again, still attempt 0 (a pause, not an attempt): a second message, not a duplicate.
    await park(item!._id, new Date(Date.now() - 1_000));
    await sweeper().retries();
    expect(await messagesOn(subject)).toBe(before + 2);
  });

  it('names each park apart and each replica the same', () => {
    const a = { _id: 'job_1:0', attempts: 0, next_attempt_at: new Date(1_000) };
    expect(retryMsgId(a)).toBe(retryMsgId({ ...a }));
    expect(retryMsgId(a)).not.toBe(retryMsgId({ ...a, next_attempt_at: new Date(2_000) }));
    expect(retryMsgId(a)).not.toBe(retryMsgId({ ...a, attempts: 1 }));
  });
});
