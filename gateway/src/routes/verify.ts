import { z } from 'zod';
import { COLLECTIONS, cacheId, itemId, newId, type CacheDoc, type JobItemDoc } from '@dv/contracts';
import { checkSyntax, sandboxResult, verdict } from '@dv/verdict';
import type { GatewayContext } from '../context.ts';
import { GATEWAY_DEFAULTS as D } from '../defaults.ts';
import { maxAgeDays } from '../http/common.ts';
import { jsonResponse, problemResponse } from '@dv/runtime';
import { retryAfterHeader } from '../http/problems.ts';
import { defineRoute } from '../http/route.ts';
import { fieldsParam, idempotencyHeader, queueInfoSchema, resultSchema } from '../http/schemas.ts';
import { vetWebhookUrl, webhookUrlField } from '../http/webhook-url.ts';
import type { Caller } from '../services/auth.ts';
import { queuedSingleEta } from '../services/eta.ts';
import { fingerprint, type Reply } from '../services/idempotency.ts';
import { resultOfItem, trimFields, type ResultObject } from '../services/results.ts';

// POST /v1/verify: one address. Answers 200 {result} when the check ends within `wait` (the
// long-poll wakes on verify.done.<job_id>), else 202 with queue information. Addresses that fail
// syntax are answered at once (undeliverable/syntax), free. With max_age_days a fresh-enough
// shared cache entry is served at once, free (nothing was probed; docs/gateway.md).

const body = z
  .strictObject({
    email: z.string().max(320).meta({ example: 'jane.doe@example.com' }),
    ref: z.string().max(200).nullable().optional(),
    max_age_days: maxAgeDays.optional(),
    force_fresh: z.boolean().default(false),
    wait: z.number().int().min(0).max(D.maxWaitSeconds).default(D.verifyWaitDefaultSeconds).meta({ description: 'Seconds to wait for the result (0-55, default 25).' }),
    webhook_url: webhookUrlField.nullable().optional(),
    fields: fieldsParam.nullable().optional(),
  })
  .meta({ id: 'VerifyRequest' });

export type VerifyResponse = { result: ResultObject };
export type VerifyQueuedResponse = z.infer<typeof queueInfoSchema>;

export const verifyRoute = defineRoute({
  method: 'post',
  path: '/v1/verify',
  operationId: 'verify_email',
  summary: 'Verify one address',
  description: 'Waits up to `wait` seconds for the result. 1 credit per live check; sandbox keys are free; cached and syntax-invalid answers are free.',
  tags: ['verify'],
  headers: idempotencyHeader,
  body,
  responses: {
    '200': jsonResponse('The check finished within `wait`.', z.object({ result: resultSchema }).meta({ id: 'VerifyResult' })),
    '202': jsonResponse('Not finished within `wait`: poll status_url?wait=25 (the result is in that response) or rely on the webhook.', queueInfoSchema, retryAfterHeader),
    '402': problemResponse('insufficient_credits.'),
    '429': problemResponse('rate_limited, daily_cap_reached or too_many_in_flight (200 single checks in flight per account).', retryAfterHeader),
  },
  handle: async ({ ctx, input, caller, signal }) => {
    const b = input.body;
    vetWebhookUrl(b.webhook_url, ctx.config.WEBHOOK_ALLOW_HTTP_LOOPBACK);
    const fp = fingerprint('POST', '/v1/verify', b);
    return ctx.idempotency.run(caller, input.headers['Idempotency-Key'], fp, () => verify(ctx, caller, b, signal, input.headers['Idempotency-Key']), signal);
  },
});

async function verify(ctx: GatewayContext, caller: Caller, b: z.output<typeof body>, signal: AbortSignal, idempotencyKey: string | undefined): Promise<Reply> {
  const fields = b.fields ?? null;
  const ref = b.ref ?? null;
  const now = new Date();
  const syntax = checkSyntax(b.email);
  if (!syntax.ok) {
    const result = caller.mode === 'sandbox' ? sandboxResult(b.email, now, ref) : verdict({ email: b.email, syntax, now, ref });
    return { status: 200, body: { result: trimFields(result, fields) } };
  }
  if (caller.mode === 'live' && b.max_age_days != null && !b.force_fresh) {
    const cached = await fromCache(ctx, syntax.address, b.max_age_days, now);
    if (cached) return { status: 200, body: { result: trimFields({ ...cached, email: syntax.address, ref, cached: true }, fields) } };
  }

  let jobId = newId('job');
  // Listen before publishing: a sandbox answer can arrive within a millisecond.
  let waiter = b.wait > 0 ? ctx.waiter.register(jobId, signal) : null;
  try {
    const job = await ctx.jobs.create(caller, {
      jobId,
      idempotencyKey,
      kind: 'single',
      items: [{ email: syntax.address, ref, meta: null }],
      label: null,
      maxAgeDays: b.max_age_days ?? null,
      forceFresh: b.force_fresh,
      notifyEmail: false,
      webhookUrl: b.webhook_url ?? null,
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
  if (b.wait > 0) {
    const item = await ctx.db.collection<JobItemDoc>(COLLECTIONS.jobItems.name).findOne({ _id: itemId(jobId, 0) });
    if (item?.state === 'done' && item.result) return { status: 200, body: { result: trimFields(resultOfItem(item), fields) } };
  }
  const load = await ctx.load.current();
  const eta = queuedSingleEta(load, caller.mode);
  // No estimate (no probe capacity): poll at the slowest advised pace.
  const retryAfter = Math.min(D.retryAfterMaxSeconds, Math.max(D.retryAfterMinSeconds, eta.seconds ?? D.retryAfterMaxSeconds));
  const queued: VerifyQueuedResponse = {
    job_id: jobId,
    status: 'running',
    estimated_seconds: eta.seconds,
    queue: { ahead: load.queue.single, load: load.load, reason: eta.reason },
    status_url: `${ctx.config.PUBLIC_BASE_URL}/v1/jobs/${jobId}`,
  };
  return { status: 202, body: queued, headers: { 'Retry-After': String(retryAfter), Location: queued.status_url } };
}

// The shared cache is keyed by the case-folded address (cacheId, as the scheduler stores it).
async function fromCache(ctx: GatewayContext, email: string, days: number, now: Date): Promise<CacheDoc['result'] | null> {
  const since = new Date(now.getTime() - days * 24 * 60 * 60 * 1000);
  const doc = await ctx.db.collection<CacheDoc>(COLLECTIONS.verificationCache.name).findOne({ _id: cacheId(email), checked_at: { $gte: since } });
  return doc?.result ?? null;
}

