import type { JobDoc, JobItemDoc, LoadReason } from '@dv/contracts';
import type { GatewayContext } from '../context.ts';
import { downloadLink } from './download-links.ts';
import { jobEta } from './eta.ts';
import type { LoadView } from './load.ts';
import { resultOfItem, trimFields, type ResultObject } from './results.ts';
import type { ResultField } from '../http/schemas.ts';

// The job status object (spec "Job"; the full field list is our decision, docs/gateway.md).

/** The job document's fields the view shows as stored (dates and nested states are converted below). */
type StoredFields = 'kind' | 'mode' | 'status' | 'label' | 'done' | 'total' | 'counts' | 'credits_charged' | 'credits_refunded' | 'max_age_days' | 'force_fresh' | 'notify_email' | 'max_wall_seconds';

export interface JobView extends Pick<JobDoc, StoredFields> {
  job_id: string;
  object: 'job';
  eta_seconds: number | null;
  /** Why eta_seconds is null while the job runs (no_probe_capacity). */
  eta_reason: LoadReason | null;
  load: LoadView['load'];
  deadline_at: string | null;
  webhook: { url: string; attempts: number; last_status: number | null; last_error: string | null; next_attempt_at: string | null; delivered_at: string | null } | null;
  /** Added: the completion email's state (JobDoc.notify), e.g. unsent_reason no_smtp_relay. */
  notify: { attempts: number; last_error: string | null; next_attempt_at: string | null; sent_at: string | null; gave_up_at: string | null; unsent_reason: 'no_smtp_relay' | null } | null;
  created_at: string;
  completed_at: string | null;
  status_url: string;
  results_url: string;
  download_url: string;
  /** Single checks: the result once done. */
  result?: ResultObject;
}

const iso = (d: Date | null | undefined) => (d ? new Date(d).toISOString() : null);

export function jobView(ctx: GatewayContext, job: JobDoc, load: LoadView, item?: JobItemDoc | null, fields?: readonly ResultField[] | null): JobView {
  const base = ctx.config.PUBLIC_BASE_URL;
  const w = job.webhook;
  const n = job.notify_email ? job.notify : null;
  const eta = jobEta(job, load, new Date(), item);
  const view: JobView = {
    job_id: job._id,
    object: 'job',
    kind: job.kind,
    mode: job.mode,
    status: job.status,
    label: job.label,
    done: job.done,
    total: job.total,
    counts: job.counts,
    eta_seconds: eta.seconds,
    eta_reason: eta.reason,
    load: load.load,
    credits_charged: job.credits_charged,
    credits_refunded: job.credits_refunded,
    max_age_days: job.max_age_days,
    force_fresh: job.force_fresh,
    notify_email: job.notify_email,
    max_wall_seconds: job.max_wall_seconds,
    deadline_at: iso(job.deadline_at),
    webhook: w ? { url: w.url, attempts: w.attempts, last_status: w.last_status, last_error: w.last_error, next_attempt_at: iso(w.next_attempt_at), delivered_at: iso(w.delivered_at) } : null,
    notify: n
      ? { attempts: n.attempts, last_error: n.last_error, next_attempt_at: iso(n.next_attempt_at), sent_at: iso(n.sent_at), gave_up_at: iso(n.gave_up_at), unsent_reason: n.unsent_reason ?? null }
      : null,
    created_at: iso(job.created_at)!,
    completed_at: iso(job.completed_at),
    status_url: `${base}/v1/jobs/${job._id}`,
    results_url: `${base}/v1/jobs/${job._id}/results`,
    download_url: downloadLink(ctx, job._id).url,
  };
  if (job.kind === 'single' && item?.state === 'done' && item.result) view.result = trimFields(resultOfItem(item), fields);
  return view;
}
