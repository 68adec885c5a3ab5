import type { GatewayContext } from '../context.ts';
import { validationError } from '../http/problems.ts';
import type { Caller } from './auth.ts';
import type { Reply } from './idempotency.ts';
import type { Intake } from './intake.ts';
import { jobTooLarge, type JobSettings } from './jobs.ts';
import { jobView, type JobView } from './views.ts';

// Starting a list job from a read list: what POST /v1/jobs does after reading its body, and what
// the console's upload does after its confirm step. One function, so a list costs, counts and
// replays the same whichever door it came in by.

export interface ListJobRequest extends JobSettings {
  intake: Intake;
  /** The request's idempotency fingerprint: a replay with the same key must carry the same one. */
  fp: string;
  /** A retry with the same key gets the job an earlier, failed try stored (JobService.create). */
  idempotencyKey?: string;
}

export type JobCreatedResponse = JobView & { accepted: number; duplicates_removed: number; invalid: Intake['summary']['invalid']; invalid_total: number };

/**
 * Creates the job once per Idempotency-Key (a replay gets the first answer back, charged once).
 * `heldSlot`: the job id whose running-job slot the caller already took (MCP list from a URL).
 */
export function startListJob(ctx: GatewayContext, caller: Caller, p: ListJobRequest, idempotencyKey: string | undefined, opts: { signal?: AbortSignal; heldSlot?: string } = {}): Promise<Reply> {
  const request: ListJobRequest = { ...p, idempotencyKey };
  return ctx.idempotency.run(caller, idempotencyKey, p.fp, () => create(ctx, caller, request, opts.heldSlot), opts.signal);
}

async function create(ctx: GatewayContext, caller: Caller, p: ListJobRequest, heldSlot?: string): Promise<Reply> {
  const s = p.intake.summary;
  if (p.intake.overLimit) throw jobTooLarge(s.uniqueTotal, caller.account.limits.emailsPerJob);
  if (s.items.length === 0) {
    throw validationError([{ loc: ['body'], msg: `no valid address to verify (${s.invalidTotal} invalid, ${s.duplicates} duplicates)`, type: 'no_valid_emails', ctx: { invalid: s.invalid.slice(0, 20) } }]);
  }
  const startedAt = Date.now();
  const { intake: _intake, fp: _fp, ...settings } = p;
  const job = await ctx.jobs.create(caller, {
    kind: 'list',
    ...settings,
    items: s.items,
    ...(heldSlot ? { jobId: heldSlot, slotHeld: true } : {}),
  });
  // A job made before this request is an earlier try's (same Idempotency-Key): counted then.
  if (job.created_at.getTime() >= startedAt) {
    ctx.metrics.jobsCreated.inc({ kind: 'list', mode: caller.mode });
    ctx.metrics.itemsAccepted.inc({ kind: 'list', mode: caller.mode }, s.items.length);
    if (job.credits_charged > 0) ctx.metrics.creditsCharged.inc(job.credits_charged);
  }
  const view = jobView(ctx, job, await ctx.load.current());
  const out: JobCreatedResponse = { ...view, accepted: s.items.length, duplicates_removed: s.duplicates, invalid: s.invalid, invalid_total: s.invalidTotal };
  return { status: 202, body: out, headers: { Location: view.status_url } };
}
