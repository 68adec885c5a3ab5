import type { Db } from 'mongodb';
import type { NatsConnection } from '@nats-io/transport-node';
import { jetstream, type ConsumerMessages } from '@nats-io/jetstream';
import { COLLECTIONS, RETENTION_DAYS, SUBJECTS, itemId, latestResultId, newId, verifyItemMessage, type EventDoc, type JobDoc, type JobItemDoc, type LatestResultDoc } from '@dv/contracts';
import { loadDecisionCounts } from '@dv/notify';
import { sandboxResult } from '@dv/verdict';

// A stand-in for the scheduler in gateway tests: it consumes the VERIFY durables of a private
// NATS, answers every item from the sandbox table (live items too: nothing is probed in tests),
// and stores results exactly as docs/data-model.md describes, so the gateway's read paths see
// what the real scheduler writes. `hold` keeps items unanswered (for 202 and cancel tests).

export interface FakeScheduler {
  stop(): Promise<void>;
  hold(on: boolean): void;
}

const DAY_MS = 24 * 60 * 60 * 1000;

export async function startFakeScheduler(nc: NatsConnection, db: Db): Promise<FakeScheduler> {
  const js = jetstream(nc);
  let holding = false;
  const subs: ConsumerMessages[] = [];
  for (const durable of ['scheduler-single', 'scheduler-list']) {
    const consumer = await js.consumers.get('VERIFY', durable);
    const messages = await consumer.consume({ max_messages: 500 });
    subs.push(messages);
    void (async () => {
      for await (const m of messages) {
        if (holding) {
          m.nak(200);
          continue;
        }
        try {
          await store(nc, db, verifyItemMessage.parse(m.json()));
          m.ack();
        } catch {
          m.nak(100);
        }
      }
    })();
  }
  return {
    hold: (on) => {
      holding = on;
    },
    stop: async () => {
      for (const s of subs) s.stop();
    },
  };
}

export async function store(nc: NatsConnection, db: Db, msg: ReturnType<typeof verifyItemMessage.parse>): Promise<void> {
  const items = db.collection<JobItemDoc>(COLLECTIONS.jobItems.name);
  const jobs = db.collection<JobDoc>(COLLECTIONS.jobs.name);
  const id = itemId(msg.job_id, msg.seq);
  const item = await items.findOne({ _id: id });
  if (!item) throw new Error('item not stored yet');
  const now = new Date();
  const result = sandboxResult(msg.email, now, item.ref);
  const upd = await items.updateOne({ _id: id, state: { $nin: ['done', 'canceled'] } }, { $set: { state: 'done', result, attempts: 1, updated_at: now } });
  if (upd.modifiedCount === 0) return;
  const job = await jobs.findOneAndUpdate({ _id: msg.job_id }, { $inc: { done: 1, [`counts.${result.status}`]: 1 }, $set: { updated_at: now } }, { returnDocument: 'after' });
  const expires = new Date(now.getTime() + RETENTION_DAYS * DAY_MS);
  await db.collection<LatestResultDoc>(COLLECTIONS.latestResults.name).replaceOne({ _id: latestResultId(msg.account_id, msg.mode, result.email) }, { account_id: msg.account_id, mode: msg.mode, email: result.email, result, job_id: msg.job_id, checked_at: now, expires_at: expires }, { upsert: true });
  if (!job || job.done < job.total) return;
  const completed = await jobs.updateOne({ _id: job._id, status: 'running' }, { $set: { status: 'completed', completed_at: now } });
  if (completed.modifiedCount === 0) return;
  const counter = await db.collection<{ _id: string; seq: number }>(COLLECTIONS.counters.name).findOneAndUpdate({ _id: `events:${job.account_id}` }, { $inc: { seq: 1 } }, { upsert: true, returnDocument: 'after' });
  // As the scheduler does: a list's event carries its counts by decision, counted from its items.
  const data = job.kind === 'single' ? { result } : { counts: job.counts, total: job.total, decisions: await loadDecisionCounts(db, job._id), results_url: `/v1/jobs/${job._id}/results` };
  const ev: EventDoc = { _id: newId('event'), account_id: job.account_id, seq: counter!.seq, type: 'job.completed', job_id: job._id, data, created_at: now, expires_at: expires };
  await db.collection<EventDoc>(COLLECTIONS.events.name).insertOne(ev);
  nc.publish(SUBJECTS.verifyDone(job._id), JSON.stringify({ job_id: job._id, kind: job.kind === 'single' ? 'single' : 'job', status: 'completed' }));
}
