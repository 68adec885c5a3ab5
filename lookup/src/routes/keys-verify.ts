import { z } from 'zod';
import { ApiError, problemResponse } from '@dv/runtime';
import { redeemVerification, type IssuedKey } from '../keys/flow.ts';
import { expiredView, issuedView } from '../web/key-views.ts';
import { sendPage, setPageHeaders } from '../web/render.ts';
import { defineRoute } from './route.ts';

// POST /v1/keys/verify?token=…: the button of the emailed link's page (keys-verify-page.ts), or a
// program. Spends the token and shows the new key exactly once: a web page (web/key-views.ts) for a browser
// (Accept: text/html), JSON otherwise. Nothing may be cached or leak the token onward.

export type KeyVerifyResponse = IssuedKey;

export const verifyTokenQuery = z.object({
  token: z.string().regex(/^[A-Za-z0-9_-]{43}$/, 'must be the token from the verification email').meta({ description: 'The token from the emailed link.' }),
});

const issuedSchema = z
  .object({ api_key: z.string().meta({ example: 'dk_free_…' }), tier: z.literal('free'), lookups_per_day: z.number().int(), created_at: z.string(), detail: z.string() })
  .meta({ id: 'IssuedKey' });

export const keysVerifyRoute = defineRoute({
  method: 'post',
  path: '/v1/keys/verify',
  operationId: 'verify_key_request',
  summary: 'Spend a verification token: issues and shows the free key once',
  description: 'The button on the page the emailed link opens (GET shows that page and spends nothing, so mail link scanners cannot use the link up). No request body.',
  tags: ['keys'],
  auth: false,
  query: verifyTokenQuery,
  responses: {
    '200': { description: 'The new key (shown once). HTML when the client prefers text/html.', content: { 'application/json': { schema: issuedSchema }, 'text/html': { schema: z.string() } } },
    '400': problemResponse('Malformed token.'),
    '410': problemResponse('Unknown, used or expired link (code verification_link_expired); an HTML page for a browser.'),
  },
  handle: async ({ ctx, input, req, res }) => {
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Referrer-Policy', 'no-referrer');
    const browser = req.accepts(['application/json', 'text/html']) === 'text/html';
    let issued: KeyVerifyResponse;
    try {
      issued = await redeemVerification(ctx, input.query.token);
    } catch (err) {
      if (!browser || !(err instanceof ApiError)) throw err;
      setPageHeaders(res);
      res.setHeader('Referrer-Policy', 'no-referrer');
      sendPage(ctx, req, res, { ...expiredView(err.message), status: err.status });
      return;
    }
    if (browser) {
      setPageHeaders(res);
      res.setHeader('Referrer-Policy', 'no-referrer');
      sendPage(ctx, req, res, issuedView(issued, ctx.config.PUBLIC_BASE_URL));
      return;
    }
    res.json(issued);
  },
});
