import { z } from 'zod';
import type { ZodOpenApiResponseObject } from 'zod-openapi';
import { ERROR_STATUS, type ErrorCode } from '@dv/contracts';

// The documented shape of problem.ts's problem details, shared by the verification and lookup
// APIs' OpenAPI documents (the portfolio API answers in its envelope instead).

export const problemSchema = z
  .looseObject({
    type: z.string().meta({ example: 'about:blank' }),
    title: z.string(),
    status: z.number().int(),
    code: z.enum(Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]]).meta({ description: 'Machine-readable error code.' }),
    detail: z.string().meta({ description: 'Human-readable explanation; says what to do next.' }),
    upgrade_url: z.string().optional().meta({ description: 'Present on plan_not_entitled (verification API).' }),
  })
  .meta({ id: 'Problem', description: 'RFC 9457 problem details (application/problem+json).' });

/** One issue of a 422 validation_error's `detail` array (the verification API). */
export const validationIssueSchema = z
  .object({
    loc: z.array(z.union([z.string(), z.number().int()])),
    msg: z.string(),
    type: z.string(),
    input: z.unknown().optional(),
    ctx: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({ id: 'ValidationIssue' });

export function problemResponse(description: string, headers?: z.ZodObject): ZodOpenApiResponseObject {
  return { description, content: { 'application/problem+json': { schema: problemSchema } }, ...(headers ? { headers } : {}) };
}
