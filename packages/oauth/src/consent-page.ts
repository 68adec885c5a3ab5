// The HTML of the consent step (GET/POST /oauth/authorize): pure functions of their inputs; the
// words that name the service and its keys come from the service (OAuthConsentText). Every
// value from a request or a client registration is HTML-escaped; the page loads nothing external
// and its CSP forbids scripts, framing and posting anywhere but here (and the client's redirect,
// which Chromium checks against form-action after the POST's redirect).

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

import type { ApprovableKey, OAuthConsentText } from './options.ts';

/** The signed-in person's part of the page (OAuthServerOptions.sessionApproval). */
export interface ConsentSession {
  who: string;
  keys: ApprovableKey[] | null;
  note?: string;
}

export interface ConsentView {
  text: OAuthConsentText;
  clientName: string;
  redirectUri: string;
  sealed: string;
  error?: string;
  session?: ConsentSession | null;
}

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;color:#1d2433}
h1{font-size:1.4rem}code{background:#f2f4f7;padding:0 .25rem;border-radius:3px;word-break:break-all}
label{display:block;font-weight:600;margin-top:1.2rem}input[type=password]{width:100%;box-sizing:border-box;padding:.5rem;font:inherit}
.err{background:#fdecea;color:#8a1c12;padding:.6rem .8rem;border-radius:4px}.row{display:flex;gap:.8rem;margin-top:1.2rem}
button{font:inherit;padding:.5rem 1.2rem;border-radius:4px;border:1px solid #98a2b3;background:#fff;cursor:pointer}
button.primary{background:#1849a9;border-color:#1849a9;color:#fff}small{color:#667085}
select{width:100%;box-sizing:border-box;padding:.5rem;font:inherit}
.session{border:1px solid #d0d5dd;border-radius:6px;padding:0 1rem 1rem;margin:1.2rem 0}h2{font-size:1.1rem}`;

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="referrer" content="no-referrer"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body>${body}</body></html>`;
}

/** "Approve as <person> with key <name>": a choice of the account's keys, or why there is none. */
function sessionPart(s: ConsentSession, sealed: string): string {
  const who = escapeHtml(s.who);
  const head = `<section class="session" aria-labelledby="session-h"><h2 id="session-h">Signed in as ${who}</h2>`;
  if (s.keys === null) return `${head}<p>Only an owner of the account can approve with its keys. Ask an owner to approve this connection, or paste an API key below.</p></section>`;
  if (s.keys.length === 0) return `${head}<p>${escapeHtml(s.note ?? 'The account has no active key to approve with.')} You can also paste an API key below.</p></section>`;
  const options = s.keys.map((k, i) => `<option value="${escapeHtml(k.id)}"${i === 0 ? ' selected' : ''}>${escapeHtml(k.name)} (${escapeHtml(k.prefix)}…)</option>`).join('');
  const button = s.keys.length === 1 ? `Approve as ${who} with key ${escapeHtml(s.keys[0]!.name)}` : `Approve as ${who} with this key`;
  return `${head}<form method="post" action="/oauth/authorize">
<input type="hidden" name="request" value="${escapeHtml(sealed)}">
<label for="key_id">Key</label>
<select id="key_id" name="key_id">${options}</select>
<div class="row"><button class="primary" type="submit" name="decision" value="approve" id="approve_session">${button}</button></div>
</form></section>
<p><small>Or paste an API key:</small></p>`;
}

export function consentPage(v: ConsentView): string {
  const client = escapeHtml(v.clientName);
  const t = v.text;
  const product = escapeHtml(t.productName);
  return page(
    `Connect ${v.clientName} to ${t.productName}`,
    `<h1>Connect <em>${client}</em> to ${product}</h1>
<p><strong>${client}</strong> asks to act with one of your API keys: ${escapeHtml(t.whatItMayDo)}</p>
<p><small>After you approve, you return to <code>${escapeHtml(v.redirectUri)}</code>. Revoking the key later disconnects ${client} at once.</small></p>
${v.error ? `<p class="err" role="alert">${escapeHtml(v.error)}</p>` : ''}
${v.session ? sessionPart(v.session, v.sealed) : ''}<form method="post" action="/oauth/authorize">
<input type="hidden" name="request" value="${escapeHtml(v.sealed)}">
<label for="api_key">${escapeHtml(t.keyLabel)}</label>
<input type="password" id="api_key" name="api_key" autocomplete="off" spellcheck="false" placeholder="${escapeHtml(t.keyPlaceholder)}">
<div class="row"><button class="primary" type="submit" name="decision" value="approve">Approve</button><button type="submit" name="decision" value="deny">Deny</button></div>
</form>`,
  );
}

export function errorPage(productName: string, message: string): string {
  return page(`${productName}: authorization failed`, `<h1>Authorization failed</h1><p class="err" role="alert">${escapeHtml(message)}</p><p>Start the connection again from the application that sent you here.</p>`);
}

/** CSP source for the client's redirect target: its origin (http/https) or its private-use scheme. */
export function redirectSource(redirectUri: string): string {
  const u = new URL(redirectUri);
  return u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : u.protocol;
}

export function pageHeaders(formTargets: string[]): Record<string, string> {
  return {
    'Content-Type': 'text/html; charset=utf-8',
    'Cache-Control': 'no-store',
    'Content-Security-Policy': `default-src 'none'; style-src 'unsafe-inline'; form-action 'self' ${formTargets.join(' ')}; frame-ancestors 'none'; base-uri 'none'`.trim(),
    'X-Frame-Options': 'DENY',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
  };
}
