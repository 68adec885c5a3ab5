import { createHash } from 'node:crypto';
import { escapeHtml } from './mailer.ts';
import type { IssuedKey } from './flow.ts';

// The HTML pages of the emailed link. The link's GET only shows a button (mail link scanners fetch
// every link before the person does); the button's form POST spends the token and shows the key.
// The one stylesheet is allowed by its hash, so the CSP needs no 'unsafe-inline' and nothing else
// (no script, no image, no frame) can load; form-action 'self' keeps the button on this service.

const STYLE =
  'body{font:16px/1.5 system-ui,sans-serif;max-width:40em;margin:3em auto;padding:0 1em}code{background:#f3f3f3;padding:.4em;display:block;word-break:break-all}button{font:inherit;padding:.5em 1.2em}';

const STYLE_HASH = createHash('sha256').update(STYLE).digest('base64');

export const KEY_PAGE_CSP = `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`;

function layout(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="robots" content="noindex"><title>${escapeHtml(title)}</title>
<style>${STYLE}</style></head>
<body><h1>${escapeHtml(title)}</h1>${body}</body></html>`;
}

/** The link's landing page: one button whose POST (same path, same token) issues the key. */
export function confirmPage(token: string, lookupsPerDay: number): string {
  return layout(
    'Get your free API key',
    `<p>Press the button to create your free key (${lookupsPerDay} lookups per day). It is shown once, on the next page.</p>
<form method="post" action="?token=${escapeHtml(token)}"><button type="submit">Show my free API key</button></form>
<p>Any earlier key for this email stops working when you press it.</p>`,
  );
}

export function issuedPage(issued: IssuedKey): string {
  const key = escapeHtml(issued.api_key);
  return layout(
    'Your free API key',
    `<code>${key}</code>
<p><strong>Copy it now: it is shown only once.</strong> It allows ${issued.lookups_per_day} lookups per day.</p>
<p>Send it as <code>Authorization: Bearer ${key}</code></p>
<p>Any earlier key for this email no longer works.</p>`,
  );
}

export function expiredPage(detail: string): string {
  return layout('This link no longer works', `<p>${escapeHtml(detail)}</p>`);
}
