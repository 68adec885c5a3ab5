import { z } from 'zod';
import { LOAD_LEVELS, LOAD_REASONS } from '@dv/contracts';
import { IDEMPOTENCY_KEY_PATTERN } from '../services/idempotency.ts';

// Resource schemas of the verification API (spec "Resources and their fields") plus the shapes
// the spec leaves "not shown", decided in docs/gateway.md. Request schemas live with their route.

export const RESULT_FIELDS = ['email', 'ref', 'status', 'sub_status', 'score', 'safe_to_send', 'flags', 'did_you_mean', 'domain', 'reason', 'attempts', 'cached', 'checked_at', 'decision', 'meta'] as const;
export type ResultField = (typeof RESULT_FIELDS)[number];

/** `fields`: comma list (max 300 chars) of result field names; unknown names are a 422. */
export const fieldsParam = z
  .string()
  .max(300)
  .transform((v, ctx) => {
    const names = v.split(',').map((s) => s.trim()).filter(Boolean);
    const bad = names.filter((n) => !(RESULT_FIELDS as readonly string[]).includes(n));
    if (bad.length > 0) {
      ctx.addIssue({ code: 'custom', message: `unknown result field(s): ${bad.join(', ')}; known: ${RESULT_FIELDS.join(', ')}` });
      return z.NEVER;
    }
    return names.length > 0 ? (names as ResultField[]) : null;
  })
  .meta({ description: 'Comma list of result fields to return (max 300 chars), for example `status,decision,score`.', example: 'email,status,decision' });

export const resultSchema = z
  .object({
    email: z.string(),
    ref: z.string().nullable(),
    status: z.enum(['deliverable', 'undeliverable', 'risky', 'unknown']),
    sub_status: z.enum(['mailbox_confirmed', 'mailbox_absent', 'domain_absent', 'syntax', 'catch_all', 'accept_all_provider', 'mailbox_full', 'disposable', 'provider_blocked', 'temp_failure', 'timeout', 'no_signal', 'deadline']),
    score: z.number().int().min(0).max(100),
    safe_to_send: z.enum(['yes', 'caution', 'no']),
    flags: z.object({ catch_all: z.boolean(), role: z.boolean(), free: z.boolean(), disposable: z.boolean(), gibberish: z.boolean() }),
    did_you_mean: z.string().nullable(),
    domain: z.object({ name: z.string(), mx_provider: z.string(), health_score: z.number().int() }),
    reason: z.string(),
    attempts: z.number().int(),
    cached: z.boolean(),
    checked_at: z.string().meta({ format: 'date-time' }),
    decision: z.object({ action: z.enum(['send', 'review', 'drop']), why: z.string(), retry_after_seconds: z.number().int().optional() }),
    meta: z.record(z.string(), z.string()).optional(),
  })
  .partial()
  .meta({ id: 'Result', description: 'One verification result. Every field is present unless trimmed by `fields`; `meta` only for items that carried it.' });

export const webhookSchema = z
  .object({
    url: z.string(),
    attempts: z.number().int(),
    last_status: z.number().int().nullable(),
    last_error: z.string().nullable(),
    next_attempt_at: z.string().nullable(),
    delivered_at: z.string().nullable(),
  })
  .meta({ id: 'WebhookDelivery' });

export const emailNoticeSchema = z
  .object({
    attempts: z.number().int(),
    last_error: z.string().nullable(),
    next_attempt_at: z.string().nullable(),
    sent_at: z.string().nullable(),
    gave_up_at: z.string().nullable(),
    unsent_reason: z.enum(['no_smtp_relay']).nullable().meta({ description: 'Why the email is not being sent: no_smtp_relay (this deployment has no mail relay configured; it is sent once one is).' }),
  })
  .meta({ id: 'EmailNotice', description: 'The completion email (notify_email): tries, outcome, and why it is not sent when it cannot be. Null until the job completes and a worker looks at it.' });

export const jobStatusSchema = z
  .object({
    job_id: z.string().meta({ example: 'job_01jb2x7k3m9q8r5t6v7w8x9y0z' }),
    object: z.literal('job'),
    kind: z.enum(['single', 'list']),
    mode: z.enum(['live', 'sandbox']),
    status: z.enum(['running', 'completed', 'failed', 'canceled']),
    label: z.string().nullable(),
    done: z.number().int(),
    total: z.number().int(),
    counts: z.object({ deliverable: z.number().int(), undeliverable: z.number().int(), risky: z.number().int(), unknown: z.number().int() }),
    eta_seconds: z.number().nullable().meta({ description: 'Rough seconds to completion while running (from the job\'s own pace once it has made progress; a single check waiting for a retry attempt counts to that attempt); null once finished, or while no estimate is honest (see eta_reason).' }),
    eta_reason: z.enum(LOAD_REASONS).nullable().meta({ description: 'Why eta_seconds is null while the job runs: no_probe_capacity (no probe node is alive; the job resumes when one is).' }),
    load: z.enum(LOAD_LEVELS),
    credits_charged: z.number().int(),
    credits_refunded: z.number().int(),
    max_age_days: z.number().int().nullable(),
    force_fresh: z.boolean(),
    notify_email: z.boolean(),
    max_wall_seconds: z.number().int().nullable(),
    deadline_at: z.string().nullable(),
    webhook: webhookSchema.nullable(),
    notify: emailNoticeSchema.nullable(),
    created_at: z.string(),
    completed_at: z.string().nullable(),
    status_url: z.string(),
    results_url: z.string(),
    download_url: z.string().meta({ description: 'Signed CSV link, no key needed; valid 7 days from this response.' }),
  })
  .meta({ id: 'Job', description: 'Job status object (full field list decided in docs/gateway.md).' });

export const invalidItemSchema = z
  .object({ index: z.number().int().optional(), row: z.number().int().optional(), input: z.string(), reason: z.string(), code: z.string() })
  .meta({ id: 'InvalidItem', description: '`index` for JSON input (0-based), `row` for uploads (1 = first data row).' });

export const jobCreatedSchema = jobStatusSchema
  .extend({
    accepted: z.number().int(),
    duplicates_removed: z.number().int(),
    invalid: z.array(invalidItemSchema),
    invalid_total: z.number().int().meta({ description: 'All rejected items; `invalid` lists the first 1,000.' }),
    credits_charged: z.number().int(),
  })
  .meta({ id: 'JobCreated' });

export const queueInfoSchema = z
  .object({
    job_id: z.string(),
    status: z.literal('running'),
    estimated_seconds: z.number().int().nullable().meta({ description: 'null while no estimate is honest (see queue.reason).' }),
    queue: z.object({ ahead: z.number().int(), load: z.enum(LOAD_LEVELS), reason: z.enum(LOAD_REASONS).nullable() }),
    status_url: z.string(),
  })
  .meta({ id: 'QueueInfo' });

/** The Idempotency-Key header of every write: validated by the route helper like the rest of the input. */
export const idempotencyHeader = z.object({
  'Idempotency-Key': z
    .string()
    .regex(IDEMPOTENCY_KEY_PATTERN, 'must be 1-255 visible ASCII characters (a fresh UUID is best)')
    .optional()
    .meta({ description: 'Fresh UUID per logical request, reused unchanged on retries; remembered 24 h.', minLength: 1, maxLength: 255 }),
});
