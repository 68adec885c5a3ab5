import { z } from 'zod';
import { problemResponse } from '@dv/runtime';
import { EXPIRED_LINK_DETAIL } from '../keys/flow.ts';
import { confirmPage, expiredPage, KEY_PAGE_CSP } from '../keys/pages.ts';
import { defineRoute } from './route.ts';
import { verifyTokenQuery } from './keys-verify.ts';

// GET /v1/keys/verify?token=…: the link in the verification email. Mail link scanners (Safe Links,
// Proofpoint …) fetch every link before the person does, so a GET spends nothing: it only checks
// the token and shows a button whose form POST (keys-verify.ts) issues the key.

export const keysVerifyPageRoute = defineRoute({
  method: 'get',
  path: '/v1/keys/verify',
  operationId: 'show_key_confirmation',
  summary: 'The emailed link: a page with a button that issues the free key (spends nothing)',
  tags: ['keys'],
  auth: false,
  query: verifyTokenQuery,
  responses: {
    '200': { description: 'The confirmation page: a form that POSTs to this URL.', content: { 'text/html': { schema: z.string() } } },
    '400': problemResponse('Malformed token.'),
    '410': { description: 'Unknown, used or expired link: a page saying so.', content: { 'text/html': { schema: z.string() } } },
  },
  handle: async ({ ctx, input, res }) => {
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.setHeader('Content-Security-Policy', KEY_PAGE_CSP);
    res.type('html');
    const { token } = input.query;
    if (!(await ctx.keys.isPending(token))) return void res.status(410).send(expiredPage(EXPIRED_LINK_DETAIL));
    res.send(confirmPage(token, ctx.config.FREE_KEY_LOOKUPS_PER_DAY));
  },
});
