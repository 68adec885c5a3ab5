import { z } from 'zod';
import { ApiError, problemResponse, validationIssueSchema, type ValidationIssue } from '@dv/runtime';

// The verification API's error model (spec "Errors"): application/problem+json with `code` and
// `detail` (the shared Problem schema of @dv/runtime); a 422 validation error carries `detail` as
// the spec's array of {loc, msg, type, input, ctx}.

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

/** The error responses every authenticated route can give. */
export const AUTH_ERRORS = {
  '401': problemResponse('missing_api_key or invalid_api_key: the bearer key is absent, wrong or revoked.'),
  '403': problemResponse('plan_not_entitled (with upgrade_url) or account_inactive.'),
  '429': problemResponse('rate_limited: requests per minute of the account used up, or too many key lookups from this address (unknown keys count more).', retryAfterHeader),
  '422': { description: 'validation_error (detail is an array of issues).', content: { 'application/problem+json': { schema: validationProblemSchema } } },
} as const;

export function validationError(issues: ValidationIssue[]): ApiError {
  return new ApiError('validation_error', issues);
}
