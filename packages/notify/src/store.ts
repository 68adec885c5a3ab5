import { COLLECTIONS, type EmailNotice, type EventDoc, type JobDoc, type JobItemDoc } from '@dv/contracts';
import type { ClientSession, Collection, Db, Filter } from 'mongodb';
import { countDecisions, type DecisionCounts } from './event.ts';

// The durable schedule lives on the job document itself (JobDoc.webhook and JobDoc.notify), so
// GET /v1/jobs/{id} shows it as it is and nothing can get out of step with a second queue.
//
// Claiming: one findOneAndUpdate both picks a due job and moves its next_attempt_at to the end of
// a lease (attempts counts the try being made). Another worker's query (next_attempt_at <= now)
// no longer matches, so two workers never send the same attempt. The result is written back only
// while the lease is still ours (same attempts and next_attempt_at); a worker that dies mid-send
// leaves the lease to run out, and the attempt after it is made then.

export interface Claim {
  job: JobDoc;
  /** Number of this try (1 = first). */
  attempt: number;
  leaseUntil: Date;
}

/** The fields of an account the notify worker reads. */
export interface AccountContact {
  _id: string;
  email: string;
  webhook_secret: string;
}

export function jobsCollection(db: Db): Collection<JobDoc> {
  return db.collection<JobDoc>(COLLECTIONS.jobs.name);
}

/** Jobs whose webhook may be tried now (served by the webhook_due and webhook_untried indexes). */
export function webhookDueFilter(now: Date): Filter<JobDoc> {
  return {
    $or: [
      // Scheduled retries (and leases that ran out).
      { 'webhook.next_attempt_at': { $type: 'date', $lte: now }, 'webhook.delivered_at': null, status: 'completed' },
      // Completed jobs whose webhook was never tried: no hand-off from the scheduler is needed.
      { status: 'completed', 'webhook.attempts': 0, 'webhook.url': { $type: 'string' }, 'webhook.next_attempt_at': null, 'webhook.delivered_at': null },
    ],
  };
}

/** Jobs whose completion email may be tried now (notify_due and notify_untried indexes). */
export function emailDueFilter(now: Date): Filter<JobDoc> {
  return {
    $or: [
      { 'notify.next_attempt_at': { $type: 'date', $lte: now }, 'notify.sent_at': null, status: 'completed', notify_email: true },
      // `notify.attempts: null` also matches a job without any notify state: never tried.
      { status: 'completed', notify_email: true, 'notify.attempts': null },
      // Marked unsent by a worker without a relay; this worker has one (notify_untried index: attempts 0).
      { status: 'completed', notify_email: true, 'notify.attempts': 0, 'notify.unsent_reason': 'no_smtp_relay' },
    ],
  };
}

/** What a job's notify state says when no worker has a relay to send its completion email with. */
export const NO_RELAY_ERROR = 'not sent: no SMTP relay is configured (SMTP_RELAY_URL unset on the workers); it is sent once a worker starts with one';

/**
 * A worker without a relay marks the completion emails it cannot send (never tried, notify_email
 * set) instead of leaving them to wait silently: `notify.unsent_reason: 'no_smtp_relay'` with
 * attempts 0, which a worker with a relay still picks up (emailDueFilter). Returns the jobs marked.
 */
export async function markEmailsWithoutRelay(db: Db, now: Date, limit = 100): Promise<string[]> {
  const untried: Filter<JobDoc> = { status: 'completed', notify_email: true, 'notify.attempts': null };
  const jobs = await jobsCollection(db).find(untried, { projection: { _id: 1 }, limit }).toArray();
  const notify: EmailNotice = { attempts: 0, last_error: NO_RELAY_ERROR, next_attempt_at: null, sent_at: null, gave_up_at: null, unsent_reason: 'no_smtp_relay' };
  const marked: string[] = [];
  for (const { _id } of jobs) {
    // The same filter again: a worker with a relay may have claimed it in between.
    const res = await jobsCollection(db).updateOne({ _id, ...untried }, { $set: { notify, updated_at: now } });
    if (res.modifiedCount === 1) marked.push(_id);
  }
  return marked;
}

export async function claimDueWebhook(db: Db, now: Date, leaseMs: number): Promise<Claim | null> {
  const leaseUntil = new Date(now.getTime() + leaseMs);
  const job = await jobsCollection(db).findOneAndUpdate(
    webhookDueFilter(now),
    { $inc: { 'webhook.attempts': 1 }, $set: { 'webhook.next_attempt_at': leaseUntil, updated_at: now } },
    { returnDocument: 'after' },
  );
  if (!job?.webhook) return null;
  return { job, attempt: job.webhook.attempts, leaseUntil };
}

export interface WebhookAttemptRecord {
  at: Date;
  delivered: boolean;
  status: number | null;
  error: string | null;
  /** When the next try is due; null when delivered or given up. */
  nextAttemptAt: Date | null;
  gaveUp: boolean;
}

/** Writes one attempt's outcome while the claim still holds; false when the lease was lost. */
export async function recordWebhookAttempt(db: Db, claim: Claim, r: WebhookAttemptRecord): Promise<boolean> {
  const res = await jobsCollection(db).updateOne(
    { _id: claim.job._id, 'webhook.attempts': claim.attempt, 'webhook.next_attempt_at': claim.leaseUntil },
    {
      $set: {
        'webhook.last_status': r.status,
        'webhook.last_error': r.error,
        'webhook.next_attempt_at': r.delivered || r.gaveUp ? null : r.nextAttemptAt,
        'webhook.delivered_at': r.delivered ? r.at : null,
        'webhook.gave_up_at': r.gaveUp ? r.at : null,
        updated_at: r.at,
      },
    },
  );
  return res.modifiedCount === 1;
}

export async function claimDueEmail(db: Db, now: Date, leaseMs: number): Promise<Claim | null> {
  const leaseUntil = new Date(now.getTime() + leaseMs);
  const job = await jobsCollection(db).findOneAndUpdate(
    emailDueFilter(now),
    // A pipeline, because `notify` may be absent or null, where $inc on a sub-field would fail.
    [
      {
        $set: {
          notify: {
            attempts: { $add: [{ $ifNull: ['$notify.attempts', 0] }, 1] },
            last_error: { $ifNull: ['$notify.last_error', null] },
            next_attempt_at: { $literal: leaseUntil },
            sent_at: { $literal: null },
            gave_up_at: { $literal: null },
            // $set merges into an existing sub-document: clear a no-relay mark explicitly.
            unsent_reason: { $literal: null },
          },
          updated_at: { $literal: now },
        },
      },
    ],
    { returnDocument: 'after' },
  );
  if (!job?.notify) return null;
  return { job, attempt: job.notify.attempts, leaseUntil };
}

export interface EmailAttemptRecord {
  at: Date;
  sent: boolean;
  error: string | null;
  nextAttemptAt: Date | null;
  gaveUp: boolean;
}

export async function recordEmailAttempt(db: Db, claim: Claim, r: EmailAttemptRecord): Promise<boolean> {
  const notify: EmailNotice = {
    attempts: claim.attempt,
    last_error: r.error,
    next_attempt_at: r.sent || r.gaveUp ? null : r.nextAttemptAt,
    sent_at: r.sent ? r.at : null,
    gave_up_at: r.gaveUp ? r.at : null,
  };
  const res = await jobsCollection(db).updateOne(
    { _id: claim.job._id, 'notify.attempts': claim.attempt, 'notify.next_attempt_at': claim.leaseUntil },
    { $set: { notify, updated_at: r.at } },
  );
  return res.modifiedCount === 1;
}

export async function loadAccountContact(db: Db, accountId: string): Promise<AccountContact | null> {
  return db.collection<AccountContact>(COLLECTIONS.accounts.name).findOne({ _id: accountId }, { projection: { _id: 1, email: 1, webhook_secret: 1 } });
}

export async function loadCompletedEvent(db: Db, jobId: string): Promise<EventDoc | null> {
  return db.collection<EventDoc>(COLLECTIONS.events.name).findOne({ job_id: jobId, type: 'job.completed' });
}

/**
 * Results of a job by decision action, counted in MongoDB (lists can hold tens of thousands of
 * items). The scheduler may call it inside its completion transaction and store the counts as
 * EventDoc.data.decisions, so the events feed and the webhook carry the same numbers.
 */
export async function loadDecisionCounts(db: Db, jobId: string, session?: ClientSession): Promise<DecisionCounts> {
  const rows = await db
    .collection<JobItemDoc>(COLLECTIONS.jobItems.name)
    .aggregate<{ _id: string | null; n: number }>([{ $match: { job_id: jobId, state: 'done' } }, { $group: { _id: '$result.decision.action', n: { $sum: 1 } } }], session ? { session } : {})
    .toArray();
  const counts = countDecisions([]);
  for (const row of rows) if (row._id === 'send' || row._id === 'review' || row._id === 'drop') counts[row._id] += row.n;
  return counts;
}
