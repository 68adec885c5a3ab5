// TEST-ONLY: job, event and result documents as the gateway and scheduler write them.
import type { EventDoc, JobDoc, JobItemDoc } from '@dv/contracts';

type Result = NonNullable<JobItemDoc['result']>;

export function result(email: string, status: Result['status'], action: Result['decision']['action']): Result {
  return {
    email,
    ref: null,
    status,
    sub_status: status === 'deliverable' ? 'mailbox_confirmed' : status === 'undeliverable' ? 'mailbox_absent' : status === 'risky' ? 'catch_all' : 'timeout',
    score: status === 'deliverable' ? 95 : 30,
    safe_to_send: action === 'send' ? 'yes' : action === 'review' ? 'caution' : 'no',
    flags: { catch_all: status === 'risky', role: false, free: false, disposable: false, gibberish: false },
    did_you_mean: null,
    domain: { name: email.split('@')[1] ?? '', mx_provider: 'other', health_score: 90 },
    reason: 'test',
    attempts: 1,
    cached: false,
    checked_at: '2026-11-22T00:59:00.000Z',
    decision: { action, why: 'test' },
  };
}

export function jobDoc(over: Partial<JobDoc> & { _id: string; account_id: string }): JobDoc {
  const now = new Date('2026-11-22T01:00:00.000Z');
  return {
    key_id: 'key_1',
    mode: 'live',
    kind: 'list',
    status: 'completed',
    label: 'october leads',
    total: 4,
    done: 4,
    counts: { deliverable: 2, undeliverable: 1, risky: 1, unknown: 0 },
    credits_charged: 4,
    credits_refunded: 0,
    max_age_days: null,
    force_fresh: false,
    notify_email: false,
    max_wall_seconds: null,
    deadline_at: null,
    webhook: null,
    created_at: now,
    updated_at: now,
    completed_at: new Date('2026-11-22T01:02:03.400Z'),
    expires_at: new Date(now.getTime() + 30 * 86_400_000),
    ...over,
  };
}

export function webhookState(url: string): NonNullable<JobDoc['webhook']> {
  return { url, attempts: 0, last_status: null, last_error: null, next_attempt_at: null, delivered_at: null };
}

export function eventDoc(job: JobDoc, over: Partial<EventDoc> = {}): EventDoc {
  const at = new Date('2026-11-22T01:02:03.456Z');
  return {
    _id: `evt_${job._id.slice(4)}`,
    account_id: job.account_id,
    seq: 1,
    type: 'job.completed',
    job_id: job._id,
    data: { job_id: job._id, kind: job.kind, status: 'completed' },
    created_at: at,
    expires_at: new Date(at.getTime() + 30 * 86_400_000),
    ...over,
  };
}
