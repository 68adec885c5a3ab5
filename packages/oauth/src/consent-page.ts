import { contentSecurityPolicy, flashList, html, PAGE_SECURITY_HEADERS, renderDocument, type Assets, type Node, type VNode } from '@dv/web';
import type { ApprovableKey, OAuthConsentText } from './options.ts';

// The HTML of the consent step (GET/POST /oauth/authorize): pure functions of their inputs; the
// words that name the service and its keys come from the service (OAuthConsentText). Markup is
// @dv/web's, so every value from a request or a client registration (the client's name is the
// registrant's to choose) is escaped by construction. The page loads only the service's own hashed
// stylesheet, runs no script, cannot be framed, and may post only here (and to the client's
// redirect, which Chromium checks against form-action after the POST's redirect).

/** The signed-in person's part of the page (OAuthServerOptions.sessionApproval). */
export interface ConsentSession {
  who: string;
  keys: ApprovableKey[] | null;
  note?: string;
}

export interface ConsentView {
  text: OAuthConsentText;
  /** The service's assets: the page links @dv/web's base.css and favicon from them. */
  assets: Assets;
  clientName: string;
  redirectUri: string;
  sealed: string;
  error?: string;
  session?: ConsentSession | null;
}

/** The bare shell: no navigation (the person is mid-way through another application's flow). */
function page(assets: Assets, title: string, body: Node): string {
  return renderDocument(html`<html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <meta name="color-scheme" content="light dark" />
      <meta name="referrer" content="no-referrer" />
      <meta name="robots" content="noindex, nofollow" />
      <title>${title}</title>
      <link rel="icon" href=${assets.url('favicon.svg')} type="image/svg+xml" />
      <link rel="stylesheet" href=${assets.url('base.css')} />
    </head>
    <body>
      <main id="main">${body}</main>
    </body>
  </html>`);
}

const sealedField = (sealed: string): VNode => html`<input type="hidden" name="request" value=${sealed} />`;

function keyChoice(s: ConsentSession & { keys: ApprovableKey[] }, sealed: string): VNode {
  const button = s.keys.length === 1 ? `Approve as ${s.who} with key ${s.keys[0]!.name}` : `Approve as ${s.who} with this key`;
  return html`<form method="post" action="/oauth/authorize">
    ${sealedField(sealed)}
    <div class="field">
      <label for="key_id">Key</label>
      <select id="key_id" name="key_id">
        ${s.keys.map((k, i) => html`<option value=${k.id} selected=${i === 0}>${`${k.name} (${k.prefix}…)`}</option>`)}
      </select>
    </div>
    <div class="actions"><button class="btn btn-primary" type="submit" name="decision" value="approve" id="approve_session">${button}</button></div>
  </form>`;
}

/** "Approve as <person> with key <name>": a choice of the account's keys, or why there is none. */
function sessionPart(s: ConsentSession, sealed: string): Node {
  let inner: VNode;
  if (s.keys === null) inner = html`<p>Only an owner of the account can approve with its keys. Ask an owner to approve this connection, or paste an API key below.</p>`;
  else if (s.keys.length === 0) inner = html`<p>${`${s.note ?? 'The account has no active key to approve with.'} You can also paste an API key below.`}</p>`;
  else inner = keyChoice({ ...s, keys: s.keys }, sealed);
  return [
    html`<section class="panel" aria-labelledby="session-h">
      <h2 id="session-h">${`Signed in as ${s.who}`}</h2>
      ${inner}
    </section>`,
    s.keys && s.keys.length > 0 ? html`<p class="muted">Or paste an API key:</p>` : null,
  ];
}

function pasteForm(t: OAuthConsentText, sealed: string): VNode {
  return html`<form method="post" action="/oauth/authorize">
    ${sealedField(sealed)}
    <div class="field">
      <label for="api_key">${t.keyLabel}</label>
      <input type="password" id="api_key" name="api_key" autocomplete="off" spellcheck="false" placeholder=${t.keyPlaceholder} />
    </div>
    <div class="actions">
      <button class="btn btn-primary" type="submit" name="decision" value="approve">Approve</button>
      <button class="btn btn-plain" type="submit" name="decision" value="deny">Deny</button>
    </div>
  </form>`;
}

export function consentPage(v: ConsentView): string {
  const t = v.text;
  const client = v.clientName;
  return page(
    v.assets,
    `Connect ${client} to ${t.productName}`,
    html`<h1>Connect <em>${client}</em> to ${t.productName}</h1>
      <p><strong>${client}</strong> asks to act with one of your API keys: ${t.whatItMayDo}</p>
      <p class="muted">After you approve, you return to <code>${v.redirectUri}</code>. Revoking the key later disconnects ${client} at once.</p>
      ${flashList(v.error ? [{ kind: 'error', text: v.error }] : [])}
      ${v.session ? sessionPart(v.session, v.sealed) : null}
      ${pasteForm(t, v.sealed)}`,
  );
}

export function errorPage(assets: Assets, productName: string, message: string): string {
  return page(
    assets,
    `${productName}: authorization failed`,
    html`<h1>Authorization failed</h1>
      ${flashList([{ kind: 'error', text: message }])}
      <p>Start the connection again from the application that sent you here.</p>`,
  );
}

/** CSP source for the client's redirect target: its origin (http/https) or its private-use scheme. */
export function redirectSource(redirectUri: string): string {
  const u = new URL(redirectUri);
  return u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : u.protocol;
}

/**
 * @dv/web's page headers, with the client's redirect as a form target besides this origin, and no
 * referrer at all: the page's address carries the client's state and PKCE challenge. Without
 * Cross-Origin-Opener-Policy: a web client opens this page in a popup and its callback page, once
 * redirected back, talks to the window that opened it; `same-origin` here would cut that link for
 * good (nothing of this page is reachable from the opener either way: it cannot be framed).
 */
export function pageHeaders(formTargets: string[]): Record<string, string> {
  const { 'Cross-Origin-Opener-Policy': _coop, ...headers } = PAGE_SECURITY_HEADERS;
  return {
    ...headers,
    'Content-Type': 'text/html; charset=utf-8',
    'Cache-Control': 'no-store',
    'Content-Security-Policy': contentSecurityPolicy({ formActions: formTargets }),
    'Referrer-Policy': 'no-referrer',
  };
}
