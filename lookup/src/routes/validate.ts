import { z } from 'zod';
import { envelopeSchema, type LookupEnvelope } from '../envelope.ts';
import { performLookup } from '../lookups.ts';
import { toolSpec } from '../tools.ts';
import { jsonResponse, problemResponse } from '@dv/runtime';
import { defineRoute, retryAfterHeader } from './route.ts';

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
  auth: 'optional',
  body: z.object({ record }).meta({ id: 'ValidateRequest' }),
  responses,
  handle: async ({ ctx, caller, input }) => {
    const answer: ValidateResponse = await performLookup(ctx, caller, { tool: 'validate', record: input.body.record }, 'rest');
    return { status: 200, body: answer };
  },
});

export const validateGetRoute = defineRoute({
  method: 'get',
  path: '/v1/validate',
  operationId: 'validate_get',
  summary: `${spec.title} (query form)`,
  description: 'The same as POST /v1/validate, with the record URL-encoded in the `record` query parameter.',
  tags: ['lookups'],
  auth: 'optional',
  query: z.object({ record }),
  responses,
  handle: async ({ ctx, caller, input }) => {
    const answer: ValidateResponse = await performLookup(ctx, caller, { tool: 'validate', record: input.query.record }, 'rest');
    return { status: 200, body: answer };
  },
});
