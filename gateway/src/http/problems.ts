import { z } from 'zod';
import type { ZodOpenApiResponseObject } from 'zod-openapi';
import { ERROR_STATUS, type ErrorCode } from '@dv/contracts';
import { ApiError } from '@dv/runtime';

// The verification API's error model (spec "Errors"): application/problem+json with `code` and
// `detail`; a 422 validation error carries `detail` as the spec's array of {loc, msg, type, input, ctx}.

export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
  input?: unknown;
  ctx?: Record<string, unknown>;
}

export const validationIssueSchema = z
  .object({
    loc: z.array(z.union([z.string(), z.number().int()])),
    msg: z.string(),
    type: z.string(),
    input: z.unknown().optional(),
    ctx: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({ id: 'ValidationIssue' });

export const problemSchema = z
  .looseObject({
    type: z.string().meta({ example: 'about:blank' }),
    title: z.string(),
    status: z.number().int(),
    code: z.enum(Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]]).meta({ description: 'Machine-readable error code.' }),
    detail: z.string().meta({ description: 'Human-readable explanation; says what to do next.' }),
    upgrade_url: z.string().optional().meta({ description: 'Present on plan_not_entitled.' }),
  })
  .meta({ id: 'Problem', description: 'RFC 9457 problem details (application/problem+json).' });

export const validationProblemSchema = z
  .looseObject({
    type: z.string(),
    title: z.string(),
    status: z.literal(422),
    code: z.enum(['validation_error', 'idempotency_key_reused', 'invalid_upload']),
    detail: z.union([z.array(validationIssueSchema), z.string()]),
  })
  .meta({ id: 'ValidationProblem', description: 'A 422: `detail` is an array of {loc, msg, type, input, ctx} for validation_error, a sentence for the others.' });

export const retryAfterHeader = z.object({ 'Retry-After': z.string().meta({ description: 'Whole seconds to wait before retrying.', example: '30' }) });

export function problemResponse(description: string, headers?: z.ZodObject): ZodOpenApiResponseObject {
  return { description, content: { 'application/problem+json': { schema: problemSchema } }, ...(headers ? { headers } : {}) };
}

export function jsonResponse(description: string, schema: z.ZodType, headers?: z.ZodObject): ZodOpenApiResponseObject {
  return { description, content: { 'application/json': { schema } }, ...(headers ? { headers } : {}) };
}

/** The error responses every authenticated route can give. */
export const AUTH_ERRORS = {
  '401': problemResponse('missing_api_key or invalid_api_key: the bearer key is absent, wrong or revoked.'),
  '403': problemResponse('plan_not_entitled (with upgrade_url) or account_inactive.'),
  '429': problemResponse('rate_limited: requests per minute of the account used up, or too many key lookups from this address (unknown keys count more).', retryAfterHeader),
  '422': { description: 'validation_error (detail is an array of issues).', content: { 'application/problem+json': { schema: validationProblemSchema } } },
} as const satisfies Record<string, ZodOpenApiResponseObject>;

export function validationError(issues: ValidationIssue[]): ApiError {
  return new ApiError('validation_error', issues);
}

/** zod issues in the spec's shape, with `loc` starting at where the value came from (body, query, path, header). */
export function toIssues(where: string, error: z.ZodError, input: unknown): ValidationIssue[] {
  return error.issues.map((i) => {
    const issue: ValidationIssue = { loc: [where, ...i.path.map((p) => (typeof p === 'number' ? p : String(p)))], msg: i.message, type: i.code };
    const value = valueAt(input, i.path);
    if (value !== undefined) issue.input = truncate(value);
    const ctx: Record<string, unknown> = {};
    for (const k of ['minimum', 'maximum', 'expected', 'values', 'format', 'keys'] as const) {
      if (k in i) ctx[k] = (i as unknown as Record<string, unknown>)[k];
    }
    if (Object.keys(ctx).length > 0) issue.ctx = JSON.parse(JSON.stringify(ctx, (_k, v) => (typeof v === 'bigint' ? Number(v) : v)));
    return issue;
  });
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let v = input;
  for (const p of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[p];
  }
  return v;
}

/** Inputs are echoed back, but never a megabyte of them. */
function truncate(v: unknown): unknown {
  if (typeof v === 'string') return v.length > 200 ? `${v.slice(0, 200)}…` : v;
  if (Array.isArray(v)) return v.length > 5 ? `[array of ${v.length}]` : v.map(truncate);
  if (v && typeof v === 'object') {
    const s = JSON.stringify(v);
    return s.length > 300 ? '{…}' : v;
  }
  return v;
}

export function isErrorCode(code: string): code is ErrorCode {
  return code in ERROR_STATUS;
}
