import { z } from 'zod';
import { escapeHtml } from '../keys/mailer.ts';
import { redeemVerification, type IssuedKey } from '../keys/flow.ts';
import { problemResponse } from '@dv/runtime';
import { defineRoute } from './route.ts';

// GET /v1/keys/verify?token=…: the link in the verification email. Spends the token and shows the
// new key exactly once: JSON for programs, a small HTML page for a browser (Accept: text/html).
// Nothing on the page may be cached or leak the token onward (no-store, no referrer).

export type KeyVerifyResponse = IssuedKey;

const issuedSchema = z
  .object({ api_key: z.string().meta({ example: 'dk_free_…' }), tier: z.literal('free'), lookups_per_day: z.number().int(), created_at: z.string(), detail: z.string() })
  .meta({ id: 'IssuedKey' });

export const keysVerifyRoute = defineRoute({
  method: 'get',
  path: '/v1/keys/verify',
  operationId: 'verify_key_request',
  summary: 'Follow a verification link: issues and shows the free key once',
  tags: ['keys'],
  auth: false,
  query: z.object({ token: z.string().regex(/^[A-Za-z0-9_-]{43}$/, 'must be the token from the verification email').meta({ description: 'The token from the emailed link.' }) }),
  responses: {
    '200': { description: 'The new key (shown once). HTML when the client prefers text/html.', content: { 'application/json': { schema: issuedSchema }, 'text/html': { schema: z.string() } } },
    '400': problemResponse('Malformed token.'),
    '410': problemResponse('Unknown, used or expired link (code verification_link_expired).'),
  },
  handle: async ({ ctx, input, req, res }) => {
    const issued: KeyVerifyResponse = await redeemVerification(ctx, input.query.token);
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Referrer-Policy', 'no-referrer');
    if (req.accepts(['application/json', 'text/html']) === 'text/html') {
      res.setHeader('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'");
      res.type('html').send(page(issued));
      return;
    }
    res.json(issued);
  },
});

function page(issued: IssuedKey): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Your free API key</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40em;margin:3em auto;padding:0 1em}code{background:#f3f3f3;padding:.4em;display:block;word-break:break-all}</style></head>
<body><h1>Your free API key</h1><code>${escapeHtml(issued.api_key)}</code>
<p><strong>Copy it now: it is shown only once.</strong> It allows ${issued.lookups_per_day} lookups per day.</p>
<p>Send it as <code>Authorization: Bearer ${escapeHtml(issued.api_key)}</code></p>
<p>Any earlier key for this email no longer works.</p></body></html>`;
}
