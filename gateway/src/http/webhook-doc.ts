import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { resultSchema } from './schemas.ts';

// The `job.completed` webhook in the OpenAPI document (OpenAPI 3.1 `webhooks`): the body the
// platform POSTs (built by @dv/notify's buildJobCompletedEvent, identical to a GET /v1/events
// entry without its cursor), its signature header and a short verification recipe. The tested
// recipes in Node and Python are in docs/notify.md §3.

const statusCounts = z.object({ deliverable: z.number().int(), undeliverable: z.number().int(), risky: z.number().int(), unknown: z.number().int() });

export const webhookEventSchema = z
  .object({
    id: z.string().meta({ example: 'evt_01jd6y2k3q8s7v5w4x3y2z1a0b' }),
    type: z.literal('job.completed'),
    created_at: z.string().meta({ format: 'date-time' }),
    data: z.object({
      job_id: z.string(),
      kind: z.enum(['single', 'list']),
      mode: z.enum(['live', 'sandbox']),
      status: z.enum(['completed', 'canceled', 'failed']),
      label: z.string().nullable(),
      total: z.number().int(),
      done: z.number().int(),
      counts: statusCounts,
      decisions: z.object({ send: z.number().int(), review: z.number().int(), drop: z.number().int() }).optional(),
      credits_charged: z.number().int(),
      credits_refunded: z.number().int(),
      completed_at: z.string().nullable(),
      results_url: z.string().optional().meta({ description: 'Lists: GET /v1/jobs/{id}/results.' }),
      result: resultSchema.nullable().optional().meta({ description: 'Single verifies (POST /v1/verify with webhook_url): the result inline.' }),
    }),
  })
  .meta({ id: 'JobCompletedEvent' });

const RECIPE = [
  '`X-Verify-Signature: t=<unix>,v1=<hex>`: hex HMAC-SHA256 keyed with the account webhook secret (GET /v1/account) over `<t>.<raw body>`.',
  'Verify the raw bytes before parsing JSON, compare in constant time, refuse t more than 5 minutes from your clock.',
  'Node: `createHmac("sha256", secret).update(t + ".").update(rawBody).digest("hex")`;',
  'Python: `hmac.new(secret.encode(), f"{t}.".encode() + raw_body, hashlib.sha256).hexdigest()`.',
  'Answer 2xx within 10 s: anything else is retried after 1 min, 5 min, 30 min, 2 h and 6 h (the schedule survives restarts); attempts show in GET /v1/jobs/{id} under webhook.',
  'Targets must be https and resolve to public addresses; redirects are not followed.',
].join(' ');

export const webhooksDoc: ZodOpenApiPathsObject = {
  'job.completed': {
    post: {
      operationId: 'webhook_job_completed',
      summary: 'A job finished (lists; single verifies given webhook_url)',
      description: RECIPE,
      tags: ['events'],
      requestParams: { header: z.object({ 'X-Verify-Signature': z.string().meta({ description: 't=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">', example: 't=1763773323,v1=5f2b…' }) }) },
      requestBody: { required: true, content: { 'application/json': { schema: webhookEventSchema } } },
      responses: { '200': { description: 'Any 2xx marks the delivery done.' } },
    },
  },
};
