// The store's own ceiling for what one sandbox POST /v1/verify writes (the test MongoDB is slow:
// the bench reports a ratio to it, docs/bench/README.md): the job and item documents inserted together, grouped
// as the gateway groups them (its Coalescer and its defaults), the acked JetStream publish of the
// item, then the job's published mark, many jobs per round trip. No HTTP, no auth, no validation:
// a closed loop of `concurrency` callers, as autocannon's connections are, for `durationS`.
import type { Db } from 'mongodb';
import { connect } from '@nats-io/transport-node';
import { COLLECTIONS, RETENTION_DAYS, itemId, newId, verifyItemMessageFor, verifySubjectFor, type JobDoc, type JobItemDoc } from '@dv/contracts';
import { JetStreamPublisher } from '@dv/runtime';
import { GATEWAY_DEFAULTS } from '@dv/gateway/defaults';
import { Coalescer } from '@dv/gateway/bench';

export interface CeilingOptions {
  db: Db;
  natsUrl: string;
  concurrency: number;
  durationS: number;
}

function docs(accountId: string, now: Date): { job: JobDoc; item: JobItemDoc } {
  const jobId = newId('job');
  const expires = new Date(now.getTime() + RETENTION_DAYS * 86_400_000);
  const job: JobDoc = {
    _id: jobId, account_id: accountId, key_id: 'key_ceiling', mode: 'sandbox', kind: 'single', status: 'running', label: null, total: 1, done: 0,
    counts: { deliverable: 0, undeliverable: 0, risky: 0, unknown: 0 }, credits_charged: 0, credits_refunded: 0, max_age_days: null, force_fresh: false,
    notify_email: false, max_wall_seconds: null, deadline_at: null, webhook: null, created_at: now, updated_at: now, completed_at: null,
    unpublished: { from_seq: 0, at: now }, expires_at: expires,
  };
  const item: JobItemDoc = {
    _id: itemId(jobId, 0), job_id: jobId, account_id: accountId, seq: 0, email: 'bench@example.com', ref: null, meta: null, state: 'queued', result: null,
    attempts: 0, next_attempt_at: null, source_ip: null, created_at: now, updated_at: now, expires_at: expires,
  };
  return { job, item };
}

/** Sandbox verifies' writes per second the store and the bus take, at most. */
export async function verifyStoreCeiling(o: CeilingOptions): Promise<number> {
  const nc = await connect({ servers: o.natsUrl, noAsyncTraces: true });
  const publisher = new JetStreamPublisher(nc);
  const jobs = o.db.collection<JobDoc>(COLLECTIONS.jobs.name);
  const items = o.db.collection<JobItemDoc>(COLLECTIONS.jobItems.name);
  const group = { maxBatch: GATEWAY_DEFAULTS.singleWriteBatchMax, maxInFlight: GATEWAY_DEFAULTS.singleWriteInFlight };
  const inserts = new Coalescer<{ job: JobDoc; item: JobItemDoc }, undefined>({
    ...group,
    flush: async (batch) => {
      await Promise.all([jobs.insertMany(batch.map((b) => b.job), { ordered: false }), items.insertMany(batch.map((b) => b.item), { ordered: false })]);
      return batch.map(() => undefined);
    },
  });
  const marks = new Coalescer<string, undefined>({
    ...group,
    flush: async (ids) => {
      await jobs.updateMany({ _id: { $in: ids } }, { $set: { unpublished: null } });
      return ids.map(() => undefined);
    },
  });
  const accountId = `acc_ceiling_${process.pid}`;
  const endAt = performance.now() + o.durationS * 1000;
  let done = 0;
  const caller = async () => {
    while (performance.now() < endAt) {
      const now = new Date();
      const { job, item } = docs(accountId, now);
      await inserts.add({ job, item });
      await publisher.publish(verifySubjectFor(job), JSON.stringify(verifyItemMessageFor(job, { seq: 0, email: item.email }, now.toISOString())), { msgID: item._id });
      // As the gateway: the mark is not awaited by the answer, but it is the store's work too.
      void marks.add(job._id).catch(() => undefined);
      done++;
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: o.concurrency }, caller));
  const rate = done / ((performance.now() - t0) / 1000);
  await nc.drain();
  return rate;
}
