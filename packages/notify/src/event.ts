import type { EventDoc, JobDoc, JobItemDoc } from '@dv/contracts';

// The one shape of a `job.completed` event: the webhook POST body and the entry of the
// GET /v1/events feed are both built here, so they cannot drift apart. docs/notify.md shows it.

export type VerificationResultLike = NonNullable<JobItemDoc['result']>;
export type DecisionAction = VerificationResultLike['decision']['action'];
export type DecisionCounts = Record<DecisionAction, number>;

export interface JobCompletedData {
  job_id: string;
  kind: JobDoc['kind'];
  mode: JobDoc['mode'];
  status: JobDoc['status'];
  label: string | null;
  total: number;
  done: number;
  counts: JobDoc['counts'];
  /** Results by decision action (send / review / drop), when known. */
  decisions?: DecisionCounts;
  credits_charged: number;
  credits_refunded: number;
  completed_at: string | null;
  /** Lists: absolute URL of GET /v1/jobs/{id}/results. */
  results_url?: string;
  /** Single verifies: the result inline (null only if it could not be found). */
  result?: VerificationResultLike | null;
}

export interface JobCompletedEvent {
  id: string;
  type: 'job.completed';
  created_at: string;
  data: JobCompletedData;
}

export interface BuildEventOptions {
  /** The API's public base address (no trailing slash needed), for results_url. */
  publicBaseUrl: string;
  /** Decision counts when the event document does not carry them (see countDecisions). */
  decisions?: DecisionCounts;
  /** A single verify's result when the event document does not carry it. */
  result?: VerificationResultLike | null;
}

const ACTIONS: readonly DecisionAction[] = ['send', 'review', 'drop'];

/** Counts results by decision action; every action is present (zero when absent). */
export function countDecisions(results: Iterable<Pick<VerificationResultLike, 'decision'> | null | undefined>): DecisionCounts {
  const counts: DecisionCounts = { send: 0, review: 0, drop: 0 };
  for (const r of results) {
    const action = r?.decision?.action;
    if (action && ACTIONS.includes(action)) counts[action] += 1;
  }
  return counts;
}

function isDecisionCounts(v: unknown): v is DecisionCounts {
  return typeof v === 'object' && v !== null && ACTIONS.every((a) => typeof (v as Record<string, unknown>)[a] === 'number');
}

const iso = (d: Date | string | null | undefined): string | null => (d == null ? null : new Date(d).toISOString());

/**
 * The event body. The job document is the source of every summary field (it no longer changes once
 * completed, so every retry sends the same bytes apart from the signature's timestamp); the event
 * document gives the id, the creation time and, for single verifies, the result.
 */
export function buildJobCompletedEvent(job: JobDoc, event: Pick<EventDoc, '_id' | 'created_at' | 'data'>, opts: BuildEventOptions): JobCompletedEvent {
  const stored = event.data ?? {};
  const result = job.kind === 'single' ? ((stored.result as VerificationResultLike | null | undefined) ?? opts.result ?? null) : undefined;
  const decisions = isDecisionCounts(stored.decisions) ? stored.decisions : (opts.decisions ?? (result ? countDecisions([result]) : undefined));
  const data: JobCompletedData = {
    job_id: job._id,
    kind: job.kind,
    mode: job.mode,
    status: job.status,
    label: job.label,
    total: job.total,
    done: job.done,
    counts: job.counts,
    ...(decisions ? { decisions: { send: decisions.send, review: decisions.review, drop: decisions.drop } } : {}),
    credits_charged: job.credits_charged,
    credits_refunded: job.credits_refunded,
    completed_at: iso(job.completed_at),
    ...(job.kind === 'single' ? { result } : { results_url: `${opts.publicBaseUrl.replace(/\/+$/, '')}/v1/jobs/${encodeURIComponent(job._id)}/results` }),
  };
  return { id: event._id, type: 'job.completed', created_at: iso(event.created_at) as string, data };
}
