import { z } from 'zod';
import { resolveCaller } from '../caller.ts';
import { envelopeSchema, type LookupEnvelope } from '../envelope.ts';
import { performLookup } from '../lookups.ts';
import { toolSpec } from '../tools.ts';
import { defineRoute, jsonResponse, problemResponse, retryAfterHeader, sendJson } from './route.ts';

// validate (the spec leaves its REST path open): POST /v1/validate with {"record": "..."} is the
// main form, since records contain characters (`;`, `+`, `~`, spaces) that are awkward in URLs;
// GET /v1/validate?record=… is offered for quick links and curl. Both return the result envelope.

export type ValidateResponse = LookupEnvelope;

const spec = toolSpec('validate');
const record = z.string().meta({ description: 'The SPF ("v=spf1 …") or DMARC ("v=DMARC1; …") record text, as one line.', example: 'v=spf1 include:_spf.example.com -all' });

const responses = {
  '200': jsonResponse('The result envelope: valid or invalid, problems, score and grade.', envelopeSchema),
  '400': problemResponse('Missing, empty, overlong or multi-line record (code invalid_request).'),
  '401': problemResponse('The Authorization header is not a valid free key.'),
  '429': problemResponse('The daily allowance is used up (code quota_exhausted).', retryAfterHeader),
};

export const validatePostRoute = defineRoute({
  method: 'post',
  path: '/v1/validate',
  operationId: 'validate',
  summary: spec.title,
  description: spec.description,
  tags: ['lookups'],
  optionalAuth: true,
  body: z.object({ record }).meta({ id: 'ValidateRequest' }),
  responses,
  handle: async (ctx, { body }, req, res) => {
    const caller = await resolveCaller(ctx, req);
    const answer: ValidateResponse = await performLookup(ctx, caller, { tool: 'validate', record: body.record }, 'rest');
    sendJson(res, 200, answer);
  },
});

export const validateGetRoute = defineRoute({
  method: 'get',
  path: '/v1/validate',
  operationId: 'validate_get',
  summary: `${spec.title} (query form)`,
  description: 'The same as POST /v1/validate, with the record URL-encoded in the `record` query parameter.',
  tags: ['lookups'],
  optionalAuth: true,
  query: z.object({ record }),
  responses,
  handle: async (ctx, { query }, req, res) => {
    const caller = await resolveCaller(ctx, req);
    const answer: ValidateResponse = await performLookup(ctx, caller, { tool: 'validate', record: query.record }, 'rest');
    sendJson(res, 200, answer);
  },
});
