import { z } from 'zod';
import { ApiError, jsonResponse, problemResponse, zodIssues } from '@dv/runtime';
import type { GatewayContext } from '../context.ts';
import { GATEWAY_DEFAULTS as D } from '../defaults.ts';
import { maxAgeDays } from '../http/common.ts';
import { retryAfterHeader, validationError } from '../http/problems.ts';
import { defineRoute } from '../http/route.ts';
import { idempotencyHeader, jobCreatedSchema } from '../http/schemas.ts';
import { vetWebhookUrl, webhookUrlField } from '../http/webhook-url.ts';
import type { Caller } from '../services/auth.ts';
import { fingerprint } from '../services/idempotency.ts';
import { Intake } from '../services/intake.ts';
import { startListJob, type ListJobRequest } from '../services/list-job.ts';
import { parseUpload } from '../services/upload.ts';

// POST /v1/jobs: a list as JSON (`emails` xor `items`) or as a multipart upload (part `file`, CSV
// or TXT, max 50 MB, with `email_column` and `label`). Both become one intake (syntax check,
// case-insensitive dedupe), then one charged job. Reading and checking the input has no side
// effect, so an Idempotency-Key replay is recognised by what was sent (for uploads: the file's
// bytes and the fields), whatever multipart boundary the retry uses.

const booleanLike = z
  .union([z.boolean(), z.enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'])])
  .transform((v) => v === true || v === 'true' || v === '1' || v === 'yes' || v === 'on')
  .meta({ description: 'true/false (strings true, false, 1, 0, yes, no, on, off also accepted).' });

const options = {
  label: z.string().max(200).nullable().optional(),
  max_age_days: maxAgeDays.optional(),
  force_fresh: z.boolean().default(false),
  notify_email: booleanLike.default(false).meta({ description: "Mail a summary and CSV link to the account's own address when the job finishes." }),
  webhook_url: webhookUrlField.nullable().optional(),
  max_wall_seconds: z.number().int().min(60).max(7 * 24 * 60 * 60).nullable().optional().meta({ description: 'Deadline in seconds (60-604800); leftover items end as unknown/deadline and are refunded.' }),
};

const itemSchema = z.strictObject({
  email: z.string().max(320),
  ref: z.string().max(200).nullable().optional(),
  meta: z
    .record(z.string().max(100), z.string().max(D.metaMaxValueChars))
    .refine((m) => Object.keys(m).length <= D.metaMaxKeys, `at most ${D.metaMaxKeys} meta keys`)
    .nullable()
    .optional(),
});

const body = z
  .strictObject({ emails: z.array(z.string().max(320)).min(1).optional(), items: z.array(itemSchema).min(1).optional(), ...options })
  .refine((b) => (b.emails === undefined) !== (b.items === undefined), { message: 'send exactly one of emails or items', path: ['emails'] })
  .meta({ id: 'JobRequest' });

const multipartFields = z.object({
  email_column: z.string().max(200).optional(),
  label: z.string().max(200).optional(),
  max_age_days: z.coerce.number().int().min(0).max(365).optional(),
  force_fresh: booleanLike.optional(),
  notify_email: booleanLike.optional(),
  webhook_url: webhookUrlField.optional(),
  max_wall_seconds: z.coerce.number().int().min(60).max(7 * 24 * 60 * 60).optional(),
});

const multipartSchema = z
  .object({
    file: z.string().meta({ format: 'binary', description: 'The list: CSV (header row; `,` `;` or tab, sniffed) or TXT (one address per line), UTF-8, max 50 MB.' }),
    email_column: z.string().optional().meta({ description: 'CSV column holding the address; default: a column named "email". Send before `file`.' }),
    label: z.string().optional(),
    max_age_days: z.string().optional(),
    force_fresh: z.string().optional(),
    notify_email: z.string().optional(),
    webhook_url: z.string().optional(),
    max_wall_seconds: z.string().optional(),
  })
  .meta({ id: 'JobUpload' });

export type { JobCreatedResponse } from '../services/list-job.ts';

/**
 * MCP verify_list_from_url takes the job's slot (under this job id) before it downloads the list,
 * and says so on the request stand-in it hands this route (mcp/list-from-url.ts). An express
 * request never carries it.
 */
export interface HeldListSlot {
  heldListSlot?: string;
}


export const jobsCreateRoute = defineRoute({
  method: 'post',
  path: '/v1/jobs',
  operationId: 'create_job',
  summary: 'Create a batch job',
  description: 'JSON (`emails` or `items`) or multipart/form-data (file part `file`). Duplicates (case-insensitive) are removed; 1 credit per unique live address, taken at creation.',
  tags: ['jobs'],
  headers: idempotencyHeader,
  rawBody: true,
  body,
  requestBodyExtra: { 'multipart/form-data': { schema: multipartSchema } },
  responses: {
    '202': jsonResponse('Accepted: the job runs.', jobCreatedSchema),
    '402': problemResponse('insufficient_credits.'),
    '413': problemResponse('job_too_large (more unique addresses than the plan allows per job) or file_too_large (over 50 MB).'),
    '415': problemResponse('unsupported_media_type: send JSON or multipart/form-data.'),
    '429': problemResponse('rate_limited, daily_cap_reached or too_many_active_jobs.', retryAfterHeader),
  },
  handle: async ({ ctx, input, caller, req, signal }) => {
    let prepared: ListJobRequest;
    if (req.is('multipart/form-data')) prepared = await prepareUpload(ctx, caller, req);
    else if (req.is('application/json') || req.is('application/*+json')) prepared = prepareJson(ctx, caller, req.body);
    else throw new ApiError('unsupported_media_type', 'Send application/json or multipart/form-data.');
    return startListJob(ctx, caller, prepared, input.headers['Idempotency-Key'], { signal, heldSlot: (req as HeldListSlot).heldListSlot });
  },
});

function prepareJson(ctx: GatewayContext, caller: Caller, raw: unknown): ListJobRequest {
  const parsed = body.safeParse(raw);
  if (!parsed.success) throw validationError(zodIssues('body', parsed.error, raw));
  const b = parsed.data;
  const intake = new Intake(caller.account.limits.emailsPerJob, D.invalidListedMax);
  if (b.emails) b.emails.forEach((e, index) => intake.add(e, null, null, { index }));
  else b.items!.forEach((it, index) => intake.add(it.email, it.ref ?? null, it.meta ?? null, { index }));
  return {
    intake,
    label: b.label ?? null,
    maxAgeDays: b.max_age_days ?? null,
    forceFresh: b.force_fresh,
    notifyEmail: b.notify_email,
    webhookUrl: vetWebhookUrl(b.webhook_url, ctx.config.WEBHOOK_ALLOW_HTTP_LOOPBACK),
    maxWallSeconds: b.max_wall_seconds ?? null,
    fp: fingerprint('POST', '/v1/jobs', b),
  };
}

async function prepareUpload(ctx: GatewayContext, caller: Caller, req: Parameters<typeof parseUpload>[0]): Promise<ListJobRequest> {
  const up = await parseUpload(req, {
    maxBytes: D.uploadMaxBytes,
    maxItems: caller.account.limits.emailsPerJob,
    invalidListedMax: D.invalidListedMax,
    metaMaxKeys: D.metaMaxKeys,
    metaMaxValueChars: D.metaMaxValueChars,
  });
  const f = multipartFields.safeParse(up.fields);
  if (!f.success) throw validationError(zodIssues('body', f.error, up.fields));
  ctx.log.debug({ file: up.fileName, format: up.format, rows: up.intake.summary.uniqueTotal }, 'upload parsed');
  return {
    intake: up.intake,
    label: f.data.label ?? null,
    maxAgeDays: f.data.max_age_days ?? null,
    forceFresh: f.data.force_fresh ?? false,
    notifyEmail: f.data.notify_email ?? false,
    webhookUrl: vetWebhookUrl(f.data.webhook_url, ctx.config.WEBHOOK_ALLOW_HTTP_LOOPBACK),
    maxWallSeconds: f.data.max_wall_seconds ?? null,
    fp: fingerprint('POST', '/v1/jobs#upload', up.digest),
  };
}
