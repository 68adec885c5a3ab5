import type { VerificationResult } from '@dv/verdict';
import type { SmtpReply, VerifyItemMessage } from './messages.ts';
import { SUBJECTS } from './subjects.ts';

// The verification pipeline's stored documents, shared by the gateway (writes jobs and items,
// reads results) and the scheduler (writes results, counters, events). docs/data-model.md tells
// the whole story; collection names and indexes are in collections.ts.

export type JobStatus = 'running' | 'completed' | 'failed' | 'canceled';
export type JobKind = 'single' | 'list';
export type KeyModeName = 'live' | 'sandbox';

export interface WebhookDelivery {
  url: string;
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  next_attempt_at: Date | null;
  delivered_at: Date | null;
  /** Added (notify): set when the retry ladder ran out (or the URL was refused for good); last_error says why. */
  gave_up_at?: Date | null;
}

/**
 * Added (notify): the completion email's durable state, written by @dv/notify's worker only. Absent
 * until the worker first claims the job (notify_email jobs only). docs/notify.md.
 */
export interface EmailNotice {
  attempts: number;
  last_error: string | null;
  /** Due time of the next try; while a worker holds the claim, the end of its lease. */
  next_attempt_at: Date | null;
  sent_at: Date | null;
  gave_up_at: Date | null;
  /**
   * Added (notify): why the email is not being sent although notify_email is set. `no_smtp_relay`:
   * the workers run without SMTP_RELAY_URL; the first worker started with a relay sends it.
   */
  unsent_reason?: 'no_smtp_relay' | null;
}

export interface JobDoc {
  _id: string; // job_…
  account_id: string;
  key_id: string;
  mode: KeyModeName;
  kind: JobKind;
  status: JobStatus;
  label: string | null;
  total: number;
  done: number;
  counts: Record<VerificationResult['status'], number>;
  credits_charged: number;
  credits_refunded: number;
  max_age_days: number | null;
  force_fresh: boolean;
  notify_email: boolean;
  max_wall_seconds: number | null;
  /** created_at + max_wall_seconds; the scheduler ends leftover items at this time. */
  deadline_at: Date | null;
  webhook: WebhookDelivery | null;
  /** Added (notify): completion email state when notify_email is set (see EmailNotice). */
  notify?: EmailNotice | null;
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
  /** Added (scheduler): false while the deadline sweep is ending leftovers and refunding them; true once done. */
  deadline_settled?: boolean;
  /** Added (scheduler): the deadline refund has been added to credits_refunded (exactly once). */
  deadline_refunded?: boolean;
  /**
   * Added (gateway): present while some of the job's messages may not have gone out. Every item
   * below `from_seq` is known published (JetStream acked); `at` is the last progress. A job whose
   * `at` is older than the scheduler's UNPUBLISHED_AFTER_MS belongs to a gateway that died
   * part-way: the sweep publishes its queued items from `from_seq` on. Null once all are acked.
   * Kept on the job, not per item: a mark per item cost MongoDB as much as inserting the item.
   */
  unpublished?: UnpublishedMark | null;
  /**
   * Added (gateway): SHA-256 (base64url) of the Idempotency-Key of the request that created the job.
   * Unique per account (index account_idem_key): a retry of that request finds this job and its
   * charge instead of making a second. Unset once the key's 24 h window has passed and the key
   * is used again.
   */
  idem_key?: string;
  /** Retention: created_at + 30 days (TTL index). */
  expires_at: Date;
}

export interface UnpublishedMark {
  from_seq: number;
  at: Date;
}

export type ItemState = 'queued' | 'waiting_retry' | 'done' | 'canceled';

/** What a probe saw for an item's deciding attempt, for a person to read (the console's check page). */
export interface ItemEvidence {
  /** The MX host that answered. */
  mx_host: string | null;
  /** The reply that decided: a foreign server's text, only ever shown as text. */
  reply: SmtpReply | null;
  /** Whether the random-address catch-all probe ran, and what it got. */
  catch_all_probe: 'accepted' | 'refused' | 'not_run';
}

export interface JobItemDoc {
  _id: string; // `${job_id}:${seq}`: the same id is the JetStream message id, so a republish is deduplicated
  job_id: string;
  account_id: string;
  seq: number;
  /** Normalized address (trimmed; domain lower-cased); duplicates are removed case-insensitively at intake. */
  email: string;
  ref: string | null;
  meta: Record<string, string> | null;
  state: ItemState;
  result: VerificationResult | null;
  /** Added: what the deciding probe attempt saw; absent when no probe decided or it was not kept. */
  evidence?: ItemEvidence | null;
  attempts: number;
  /** Greylist ladder: when the item is due again (durable: a restart picks it up). */
  next_attempt_at: Date | null;
  /** Source IP of the first probe, reused for greylist retries (postgrey keys on the client /24). */
  source_ip: string | null;
  /** Added (scheduler): when the first probe attempt was made; the greylist ladder counts from it. */
  first_attempt_at?: Date | null;
  /** Added (scheduler): the probe node of the last attempt (greylist retries prefer its source IP). */
  probe_node?: string | null;
  /** Added (scheduler, when parked): the item's queue, so load figures count a parked single check as a single check. */
  priority?: 'single' | 'list';
  created_at: Date;
  updated_at: Date;
  expires_at: Date;
}

/**
 * Keyed by `_id` (latestResultId, cacheId), not by a unique secondary index: the scheduler
 * replaces one of each per finished item, and MongoDB's upsert by `_id` alone costs about a third
 * of an upsert matched through a secondary index (docs/scheduler.md, "Benchmark").
 */
export interface LatestResultDoc {
  _id: string; // latestResultId(account_id, mode, email)
  account_id: string;
  /** The mode of the key whose job produced it: a live key never reads a sandbox answer, nor the reverse. */
  mode: KeyModeName;
  email: string;
  result: VerificationResult;
  job_id: string;
  checked_at: Date;
  expires_at: Date;
}

/** Shared across accounts: only the probe-derived verdict, never ref/meta. */
export interface CacheDoc {
  _id: string; // cacheId(email)
  email: string;
  result: VerificationResult;
  checked_at: Date;
  expires_at: Date;
}

export interface EventDoc {
  _id: string; // evt_…
  account_id: string;
  /** Monotonic per account (counters collection `events:<account_id>`); the feed cursor. */
  seq: number;
  type: 'job.completed';
  job_id: string;
  data: Record<string, unknown>;
  created_at: Date;
  expires_at: Date;
}

/** `counters` collection: `_id` `events:<account_id>` holds the last event `seq` given out for that account. */
export interface CounterDoc {
  _id: string;
  seq: number;
}

/** Credit-ledger movement ids: one per cause, so each movement can happen once only. */
export const LEDGER_IDS = {
  charge: (jobId: string) => `charge:${jobId}`,
  refundCancel: (jobId: string) => `refund:${jobId}:cancel`,
  refundDeadline: (jobId: string) => `refund:${jobId}:deadline`,
  /** Items charged for but never stored (the gateway failed part-way): the sweep refunds the gap once. */
  refundUnstored: (jobId: string) => `refund:${jobId}:unstored`,
} as const;

export const itemId = (jobId: string, seq: number) => `${jobId}:${seq}`;
/**
 * An account's latest result for an address, per key mode (sandbox answers never show through a
 * live key, nor the reverse), the address case folded as jobs deduplicate it (Bob@x and bob@x are
 * one address to GET /v1/lookup).
 */
export const latestResultId = (accountId: string, mode: KeyModeName, email: string) => `${accountId}:${mode}:${email.toLowerCase()}`;
/** The shared cache holds one entry per address, case folded. */
export const cacheId = (email: string) => email.toLowerCase();

/** The JetStream subject an item of this job travels on (single checks before list items). */
export function verifySubjectFor(job: Pick<JobDoc, 'kind'>): string {
  return job.kind === 'single' ? SUBJECTS.verifySingle : SUBJECTS.verifyList;
}

/** The one way an item becomes its VERIFY message (gateway intake, scheduler re-enqueues, tests). */
export function verifyItemMessageFor(
  job: Pick<JobDoc, '_id' | 'account_id' | 'mode' | 'kind' | 'max_age_days' | 'force_fresh'>,
  item: { seq: number; email: string },
  enqueuedAt: string,
): VerifyItemMessage {
  return {
    job_id: job._id,
    account_id: job.account_id,
    seq: item.seq,
    email: item.email,
    mode: job.mode,
    priority: job.kind,
    max_age_days: job.max_age_days,
    force_fresh: job.force_fresh,
    enqueued_at: enqueuedAt,
  };
}
