import { z } from 'zod';
import { problemResponse } from '@dv/runtime';
import { EXPIRED_LINK_DETAIL } from '../keys/flow.ts';
import { confirmView, expiredView } from '../web/key-views.ts';
import { sendPage, setPageHeaders } from '../web/render.ts';
import { defineRoute } from './route.ts';
import { verifyTokenQuery } from './keys-verify.ts';

// GET /v1/keys/verify?token=…: the link in the verification email. Mail link scanners (Safe Links,
// Proofpoint …) fetch every link before the person does, so a GET spends nothing: it only checks
// the token and shows a button whose form POST (keys-verify.ts) issues the key. The page is one of
// the web pages (web/key-views.ts), under their headers.

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
  handle: async ({ ctx, input, req, res }) => {
    setPageHeaders(res);
    // The token is in this page's address: it must not travel on in a Referer.
    res.setHeader('Referrer-Policy', 'no-referrer');
    const { token } = input.query;
    if (!(await ctx.keys.isPending(token))) return void sendPage(ctx, req, res, expiredView(EXPIRED_LINK_DETAIL));
    sendPage(ctx, req, res, confirmView(token, ctx.config.FREE_KEY_LOOKUPS_PER_DAY));
  },
});
