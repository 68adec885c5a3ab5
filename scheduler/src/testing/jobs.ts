// Test helper: creates a job exactly as the gateway does (docs/data-model.md step 1): the JobDoc,
// its JobItemDocs, then one VerifyItemMessage per item on JetStream with the item id as message id.
import type { Db } from 'mongodb';
import { jetstream } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { COLLECTIONS, itemId, newId, verifyItemMessageFor, verifySubjectFor, type JobDoc, type JobItemDoc } from '@dv/contracts';

export interface TestJobOptions {
  accountId?: string;
  mode?: 'live' | 'sandbox';
  kind?: 'single' | 'list';
  maxAgeDays?: number | null;
  forceFresh?: boolean;
  maxWallSeconds?: number | null;
  creditsCharged?: number;
  /** Do not publish (the caller publishes later, or never). */
  noPublish?: boolean;
}

export async function createTestJob(db: Db, nc: NatsConnection, emails: readonly string[], opts: TestJobOptions = {}): Promise<{ job: JobDoc; items: JobItemDoc[] }> {
  const now = new Date();
  const jobId = newId('job');
  const kind = opts.kind ?? (emails.length === 1 ? 'single' : 'list');
  const mode = opts.mode ?? 'live';
  const expires = new Date(now.getTime() + 30 * 86_400_000);
  const job: JobDoc = {
    _id: jobId,
    account_id: opts.accountId ?? 'acc_test',
    key_id: 'key_test',
    mode,
    kind,
    status: 'running',
    label: null,
    total: emails.length,
    done: 0,
    counts: { deliverable: 0, undeliverable: 0, risky: 0, unknown: 0 },
    credits_charged: opts.creditsCharged ?? (mode === 'live' ? emails.length : 0),
    credits_refunded: 0,
    max_age_days: opts.maxAgeDays ?? null,
    force_fresh: opts.forceFresh ?? false,
    notify_email: false,
    max_wall_seconds: opts.maxWallSeconds ?? null,
    deadline_at: opts.maxWallSeconds ? new Date(now.getTime() + opts.maxWallSeconds * 1000) : null,
    webhook: null,
    created_at: now,
    updated_at: now,
    completed_at: null,
    expires_at: expires,
  };
  const items: JobItemDoc[] = emails.map((email, seq) => ({
    _id: itemId(jobId, seq),
    job_id: jobId,
    account_id: job.account_id,
    seq,
    email,
    ref: `ref-${seq}`,
    meta: null,
    state: 'queued',
    result: null,
    attempts: 0,
    next_attempt_at: null,
    source_ip: null,
    created_at: now,
    updated_at: now,
    expires_at: expires,
  }));
  await db.collection<JobDoc>(COLLECTIONS.jobs.name).insertOne(job);
  if (items.length > 0) await db.collection<JobItemDoc>(COLLECTIONS.jobItems.name).insertMany(items);
  if (!opts.noPublish) await publishItems(nc, job, items);
  return { job, items };
}

export async function publishItems(nc: NatsConnection, job: JobDoc, items: readonly JobItemDoc[]): Promise<void> {
  const js = jetstream(nc);
  const enqueuedAt = new Date().toISOString();
  await Promise.all(items.map((item) => js.publish(verifySubjectFor(job), JSON.stringify(verifyItemMessageFor(job, item, enqueuedAt)), { msgID: item._id })));
}

/** Polls until the job is no longer running (or the time runs out); returns the last JobDoc. */
export async function waitForJob(db: Db, jobId: string, timeoutMs = 20_000): Promise<JobDoc> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = await db.collection<JobDoc>(COLLECTIONS.jobs.name).findOne({ _id: jobId });
    if (job && job.status !== 'running') return job;
    if (Date.now() > deadline) throw new Error(`job ${jobId} still running after ${timeoutMs} ms (done ${job?.done}/${job?.total})`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function itemsOf(db: Db, jobId: string): Promise<JobItemDoc[]> {
  return db.collection<JobItemDoc>(COLLECTIONS.jobItems.name).find({ job_id: jobId }).sort({ seq: 1 }).toArray();
}
