import type { LoadReason } from '@dv/contracts';
import type { ResultObject } from '../services/results.ts';
import type { JobView } from '../services/views.ts';

// Plain-English lines an agent can quote; the structured JSON carries the full detail.

export const REASON_TEXT: Record<LoadReason, string> = {
  no_probe_capacity: 'no probe node is available right now; live checks resume when one is',
};

export function resultLine(r: ResultObject): string {
  const d = r.decision as { action?: string; why?: string } | undefined;
  return `${r.email ?? '?'}: ${r.status ?? '?'}${r.sub_status ? `/${r.sub_status}` : ''}, score ${r.score ?? '?'}, safe_to_send ${r.safe_to_send ?? '?'}, decision ${d?.action ?? '?'}${d?.why ? ` (${d.why})` : ''}${r.did_you_mean ? `; did you mean ${r.did_you_mean}?` : ''}${r.cached ? ' [from stored result, free]' : ''}`;
}

export function jobLine(j: JobView): string {
  const c = j.counts as unknown as Record<string, number> | undefined;
  const counts = c ? Object.entries(c).map(([k, v]) => `${k} ${v}`).join(', ') : '';
  const eta = j.status !== 'running' ? '' : j.eta_seconds != null ? `, about ${j.eta_seconds} s left` : j.eta_reason ? `, no time estimate (${REASON_TEXT[j.eta_reason]})` : '';
  return `Job ${j.job_id} (${j.kind}, ${j.mode}${j.label ? `, "${j.label}"` : ''}): ${j.status}, ${j.done}/${j.total} done${eta}${counts ? `; ${counts}` : ''}; credits charged ${j.credits_charged}, refunded ${j.credits_refunded}.`;
}

export const POLL_HINT = 'Call get_job with this job_id (wait up to 20 s per call) until status is completed, then get_job_results.';
