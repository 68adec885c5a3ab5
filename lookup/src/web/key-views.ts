import { copyable, html, type PageView } from '@dv/web';
import type { IssuedKey } from '../keys/flow.ts';

// The pages of the emailed link (routes/keys-verify-page.ts and keys-verify.ts). The link's GET
// only shows a button (mail link scanners fetch every link before the person does); the button's
// POST spends the token and shows the key, once. Neither may be indexed.

/** The link's landing page: one button whose POST (same path, same token) issues the key. */
export function confirmView(token: string, lookupsPerDay: number): PageView {
  return {
    title: 'Get your free API key',
    noindex: true,
    body: html`<h1>Get your free API key</h1>
      <p class="lead">Press the button to create your free key (${lookupsPerDay} lookups per day). It is shown once, on the next page.</p>
      <form method="post" action=${`?token=${token}`}>
        <button type="submit" class="btn btn-primary">Show my free API key</button>
      </form>
      <p>Any earlier key for this email stops working when you press it.</p>`,
  };
}

export function issuedView(issued: IssuedKey, baseUrl: string): PageView {
  return {
    title: 'Your free API key',
    noindex: true,
    body: html`<h1>Your free API key</h1>
      ${copyable(issued.api_key, 'API key')}
      <p class="lead"><strong>Copy it now: it is shown only once</strong> and stored only as a hash. It allows ${issued.lookups_per_day} lookups per day.</p>
      <h2>How to use it</h2>
      <p>Send it in the <code>Authorization</code> header of every REST call:</p>
      <pre><code>${`curl -H "Authorization: Bearer ${issued.api_key}" ${baseUrl}/v1/email-security/example.com`}</code></pre>
      <p>In an MCP client, add the same header (<code>Authorization: Bearer …</code>) to the server <code>${baseUrl}/mcp</code> where the client lets you set headers.</p>
      <p>Any earlier key for this email no longer works.</p>`,
  };
}

export function expiredView(detail: string): PageView {
  return {
    title: 'This link no longer works',
    status: 410,
    noindex: true,
    body: html`<h1>This link no longer works</h1><p class="lead">${detail}</p><p><a href="/key">Ask for a new link</a></p>`,
  };
}
