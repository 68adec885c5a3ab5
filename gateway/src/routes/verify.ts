import { z } from 'zod';
import type { GatewayContext } from '../context.ts';
import { GATEWAY_DEFAULTS as D } from '../defaults.ts';
import { maxAgeDays } from '../http/common.ts';
import { jsonResponse, problemResponse } from '@dv/runtime';
import { retryAfterHeader } from '../http/problems.ts';
import { defineRoute } from '../http/route.ts';
import { fieldsParam, idempotencyHeader, queueInfoSchema, resultSchema } from '../http/schemas.ts';
import { vetWebhookUrl, webhookUrlField } from '../http/webhook-url.ts';
import type { Caller } from '../services/auth.ts';
import { fingerprint, type Reply } from '../services/idempotency.ts';
import { trimFields, type ResultObject } from '../services/results.ts';
import { verifyOne } from '../services/verify-one.ts';

// POST /v1/verify: one address. Answers 200 {result} when the check ends within `wait`, else 202
// with queue information. The check itself is services/verify-one.ts, which the console's check
// page shares.

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
  const input = { email: b.email, ref: b.ref ?? null, maxAgeDays: b.max_age_days ?? null, forceFresh: b.force_fresh, wait: b.wait, webhookUrl: b.webhook_url ?? null, idempotencyKey };
  const out = await verifyOne(ctx, caller, input, signal);
  if (out.kind === 'result') return { status: 200, body: { result: trimFields(out.result, fields) } };
  const q = out.queued;
  const queued: VerifyQueuedResponse = {
    job_id: q.jobId,
    status: 'running',
    estimated_seconds: q.estimatedSeconds,
    queue: { ahead: q.ahead, load: q.load, reason: q.reason },
    status_url: `${ctx.config.PUBLIC_BASE_URL}/v1/jobs/${q.jobId}`,
  };
  return { status: 202, body: queued, headers: { 'Retry-After': String(q.retryAfterSeconds), Location: queued.status_url } };
}
