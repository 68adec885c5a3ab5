import type { JobDoc, JobItemDoc, LoadReason } from '@dv/contracts';
import type { LoadView } from './load.ts';

// Time-to-completion estimates (docs/gateway.md "ETAs"). Pure: the job, its single item when it has
// one, the load figures and the clock in; seconds (or null with the reason) out.
//
// What limits a list job is its own domains' politeness gates and retry ladders, not the global
// queue, so once a job has made progress its ETA comes from its own observed rate (items done per
// second since it started). That rate already carries the politeness limits of the providers it
// holds and the items parked for later attempts, and it moves slowly between polls: one more
// poll changes done and elapsed by little, so the ETA cannot swing by orders of magnitude.
// Before there is enough progress to measure, the global figures (seconds per 1,000) stand in.

export interface Eta {
  seconds: number | null;
  /** Why `seconds` is null while the job runs. */
  reason: LoadReason | null;
}

/** Progress needed before a job's own rate is trusted over the global figures. */
export const ETA_OWN_RATE_MIN_DONE = 5;
export const ETA_OWN_RATE_MIN_ELAPSED_MS = 2_000;
/** Sandbox items never wait for a probe: the pipeline answers them at about this rate. */
const SANDBOX_ITEMS_PER_S = 1_000;

type JobFacts = Pick<JobDoc, 'status' | 'kind' | 'mode' | 'total' | 'done' | 'created_at'>;

export function jobEta(job: JobFacts, load: LoadView, now: Date, item?: Pick<JobItemDoc, 'state' | 'next_attempt_at'> | null): Eta {
  if (job.status !== 'running') return { seconds: null, reason: null };
  const left = Math.max(0, job.total - job.done);
  if (job.mode === 'sandbox') return known(1 + left / SANDBOX_ITEMS_PER_S);
  if (load.reason) return { seconds: null, reason: load.reason };
  const perSingle = load.seconds_per_single ?? 0;
  if (job.kind === 'single') {
    // Waiting for its next greylist (or other retry) attempt: that attempt is the honest answer.
    if (item?.state === 'waiting_retry' && item.next_attempt_at) {
      const until = (new Date(item.next_attempt_at).getTime() - now.getTime()) / 1000;
      return known(Math.max(0, until) + perSingle);
    }
    return known(perSingle);
  }
  const elapsedMs = now.getTime() - new Date(job.created_at).getTime();
  if (job.done >= ETA_OWN_RATE_MIN_DONE && elapsedMs >= ETA_OWN_RATE_MIN_ELAPSED_MS) {
    const perS = job.done / (elapsedMs / 1000);
    return known(left / perS);
  }
  return known((left / 1000) * (load.seconds_per_1000 ?? 0));
}

/** A single check just queued (202): the singles ahead of it at the current pace. */
export function queuedSingleEta(load: LoadView, mode: JobDoc['mode']): Eta {
  if (mode === 'sandbox') return known(1);
  if (load.reason) return { seconds: null, reason: load.reason };
  const ahead = load.queue.single;
  return known((load.seconds_per_single ?? 0) + (load.throughput_per_s > 0 ? ahead / load.throughput_per_s : 0));
}

function known(seconds: number): Eta {
  return { seconds: Math.max(1, Math.round(seconds)), reason: null };
}
