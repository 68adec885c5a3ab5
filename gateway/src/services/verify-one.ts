import { COLLECTIONS, cacheId, itemId, newId, type CacheDoc, type JobItemDoc } from '@dv/contracts';
import { checkSyntax, sandboxResult, verdict } from '@dv/verdict';
import type { GatewayContext } from '../context.ts';
import { GATEWAY_DEFAULTS as D } from '../defaults.ts';
import type { Caller } from './auth.ts';
import { queuedSingleEta } from './eta.ts';
import { resultOfItem, type ResultObject } from './results.ts';

// One address checked for a caller: what POST /v1/verify does, shared with the console's check
// page so both cost, count and answer alike. The result when the check ends within `wait` seconds
// (the long-poll wakes on verify.done.<job_id>), else the queued job. Addresses that fail syntax
// are answered at once (undeliverable/syntax), free, with no job. With max_age_days a fresh-enough
// shared cache entry is served at once, free (nothing was probed; docs/gateway.md).

export interface VerifyOneInput {
  email: string;
  ref: string | null;
  maxAgeDays: number | null;
  forceFresh: boolean;
  /** Seconds to wait for the result (0 = answer with the queued job at once). */
  wait: number;
  webhookUrl: string | null;
  idempotencyKey?: string;
}

export interface QueuedSingle {
  jobId: string;
  estimatedSeconds: number | null;
  ahead: number;
  load: Awaited<ReturnType<GatewayContext['load']['current']>>['load'];
  reason: ReturnType<typeof queuedSingleEta>['reason'];
  /** When asking again is worth it. */
  retryAfterSeconds: number;
}

export type VerifyOneOutcome =
  | { kind: 'result'; result: ResultObject; jobId: string | null; syntaxInvalid: boolean }
  | { kind: 'queued'; queued: QueuedSingle };

export async function verifyOne(ctx: GatewayContext, caller: Caller, b: VerifyOneInput, signal: AbortSignal): Promise<VerifyOneOutcome> {
  const now = new Date();
  const syntax = checkSyntax(b.email);
  if (!syntax.ok) {
    const result = caller.mode === 'sandbox' ? sandboxResult(b.email, now, b.ref) : verdict({ email: b.email, syntax, now, ref: b.ref });
    return { kind: 'result', result, jobId: null, syntaxInvalid: true };
  }
  if (caller.mode === 'live' && b.maxAgeDays != null && !b.forceFresh) {
    const cached = await fromCache(ctx, syntax.address, b.maxAgeDays, now);
    if (cached) return { kind: 'result', result: { ...cached, email: syntax.address, ref: b.ref, cached: true }, jobId: null, syntaxInvalid: false };
  }
  const jobId = await startAndWait(ctx, caller, b, syntax.address, signal);
  if (b.wait > 0) {
    const item = await ctx.db.collection<JobItemDoc>(COLLECTIONS.jobItems.name).findOne({ _id: itemId(jobId, 0) });
    if (item?.state === 'done' && item.result) return { kind: 'result', result: resultOfItem(item), jobId, syntaxInvalid: false };
  }
  return { kind: 'queued', queued: await queuedInfo(ctx, caller, jobId) };
}

/** Makes the single job (or finds this Idempotency-Key's earlier one) and waits up to `wait`. */
async function startAndWait(ctx: GatewayContext, caller: Caller, b: VerifyOneInput, address: string, signal: AbortSignal): Promise<string> {
  let jobId = newId('job');
  // Listen before publishing: a sandbox answer can arrive within a millisecond.
  let waiter = b.wait > 0 ? ctx.waiter.register(jobId, signal) : null;
  try {
    const job = await ctx.jobs.create(caller, {
      jobId,
      idempotencyKey: b.idempotencyKey,
      kind: 'single',
      items: [{ email: address, ref: b.ref, meta: null }],
      label: null,
      maxAgeDays: b.maxAgeDays,
      forceFresh: b.forceFresh,
      notifyEmail: false,
      webhookUrl: b.webhookUrl,
      maxWallSeconds: null,
    });
    if (job._id === jobId) ctx.metrics.jobsCreated.inc({ kind: 'single', mode: caller.mode });
    else {
      // This Idempotency-Key's earlier try stored its job, then failed: this retry waits on that
      // job (listening first, then looking whether it has already finished).
      waiter?.cancel();
      jobId = job._id;
      waiter = b.wait > 0 && job.status === 'running' ? ctx.waiter.register(jobId, signal) : null;
      if (waiter && (await ctx.db.collection<JobItemDoc>(COLLECTIONS.jobItems.name).countDocuments({ _id: itemId(jobId, 0), state: 'done' })) > 0) {
        waiter.cancel();
        waiter = null;
      }
    }
    if (waiter) await waiter.wait(b.wait * 1000);
  } finally {
    waiter?.cancel();
  }
  return jobId;
}

async function queuedInfo(ctx: GatewayContext, caller: Caller, jobId: string): Promise<QueuedSingle> {
  const load = await ctx.load.current();
  const eta = queuedSingleEta(load, caller.mode);
  // No estimate (no probe capacity): poll at the slowest advised pace.
  const retryAfterSeconds = Math.min(D.retryAfterMaxSeconds, Math.max(D.retryAfterMinSeconds, eta.seconds ?? D.retryAfterMaxSeconds));
  return { jobId, estimatedSeconds: eta.seconds, ahead: load.queue.single, load: load.load, reason: eta.reason, retryAfterSeconds };
}

// The shared cache is keyed by the case-folded address (cacheId, as the scheduler stores it).
async function fromCache(ctx: GatewayContext, email: string, days: number, now: Date): Promise<CacheDoc['result'] | null> {
  const since = new Date(now.getTime() - days * 24 * 60 * 60 * 1000);
  const doc = await ctx.db.collection<CacheDoc>(COLLECTIONS.verificationCache.name).findOne({ _id: cacheId(email), checked_at: { $gte: since } });
  return doc?.result ?? null;
}
