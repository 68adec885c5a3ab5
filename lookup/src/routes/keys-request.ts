import { z } from 'zod';
import { clientIp } from '../client.ts';
import { emailSchema, requestFreeKey, type KeyRequestAnswer } from '../keys/flow.ts';
import { jsonResponse, problemResponse } from '@dv/runtime';
import { defineRoute, retryAfterHeader } from './route.ts';

// POST /v1/keys/request {email}: the web-form twin of the MCP tool request_api_key. Always the same
// answer for a valid address, so the endpoint does not reveal who already holds a key.

export type KeyRequestResponse = KeyRequestAnswer;

const answerSchema = z
  .object({ status: z.literal('sent'), email: z.string(), expires_at: z.string(), detail: z.string() })
  .meta({ id: 'KeyRequestAnswer' });

export const keysRequestRoute = defineRoute({
  method: 'post',
  path: '/v1/keys/request',
  operationId: 'request_api_key',
  summary: 'Request a free API key (sends a verification link by email)',
  description: 'Sends a single-use verification link to the address. Opening it shows a button; pressing it shows a new free key (dk_free_…) once. No password, no account.',
  tags: ['keys'],
  auth: false,
  body: z.object({ email: z.string().max(254).meta({ description: emailSchema.description, example: 'you@example.com' }) }).meta({ id: 'KeyRequest' }),
  responses: {
    '202': jsonResponse('The link was sent.', answerSchema),
    '400': problemResponse('Not an email address.'),
    '429': problemResponse('Too many requests for this address or from this IP today (code rate_limited).', retryAfterHeader),
    '503': problemResponse('The email could not be sent (or mail is not configured); nothing was stored.'),
  },
  handle: async ({ ctx, input, req }) => {
    const answer: KeyRequestResponse = await requestFreeKey(ctx, input.body.email, clientIp(req));
    return { status: 202, body: answer };
  },
});
