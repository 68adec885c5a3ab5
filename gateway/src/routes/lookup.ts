import { z } from 'zod';
import { ApiError, jsonResponse, problemResponse } from '@dv/runtime';
import { checkSyntax } from '@dv/verdict';
import { defineRoute } from '../http/route.ts';
import { fieldsParam, resultSchema } from '../http/schemas.ts';
import { trimFields, type ResultObject } from '../services/results.ts';

// GET /v1/lookup?email=: the account's latest stored result for an address (free), from keys of
// the caller's mode only (a live key never sees a sandbox answer, nor the reverse). Addresses match
// case-insensitively, as jobs deduplicate them (latestResultId).

export interface LookupResponse {
  result: ResultObject;
  job_id: string;
}

export const lookupRoute = defineRoute({
  method: 'get',
  path: '/v1/lookup',
  operationId: 'lookup_email',
  summary: 'Latest stored result for an address (free)',
  description: 'Only results of jobs made with a key of the same mode are returned: a live key never sees a sandbox result, nor the reverse. The address matches case-insensitively.',
  tags: ['verify'],
  query: z.object({ email: z.string().min(1).max(320), fields: fieldsParam.optional() }),
  responses: {
    '200': jsonResponse('The latest result this account has for the address.', z.object({ result: resultSchema, job_id: z.string() }).meta({ id: 'LookupResult' })),
    '404': problemResponse('not_found: no stored result for this address on this account from a key of this mode (live or sandbox).'),
  },
  handle: async ({ ctx, input, caller }) => {
    const syntax = checkSyntax(input.query.email);
    const email = syntax.ok ? syntax.address : input.query.email.trim();
    const doc = await ctx.results.latest(caller.account._id, caller.mode, email);
    if (!doc) throw new ApiError('not_found', `No stored result for ${email.slice(0, 320)} on this account${caller.mode === 'sandbox' ? ' with a sandbox key' : ''}; verify it with POST /v1/verify.`);
    const out: LookupResponse = { result: trimFields({ ...doc.result, email: doc.result.email ?? email }, input.query.fields), job_id: doc.job_id };
    return { status: 200, body: out };
  },
});
