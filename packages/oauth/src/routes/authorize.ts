import type { Request, Response } from 'express';
import { InvalidRequestError, OAuthError, UnsupportedResponseTypeError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { consentPage, errorPage, pageHeaders, redirectSource } from '../consent-page.ts';
import { openRequest, sealRequest, type AuthorizationRequest } from '../consent-request.ts';
import { bodyOf } from '../http.ts';
import type { KeyCheck, SessionApproval } from '../options.ts';
import { checkResource, pickRedirectUri } from '../policy.ts';
import { safeEqual } from '../secrets.ts';
import type { ClientDoc } from '../store.ts';
import { defineOAuthRoute, OAUTH_ROUTE, type OAuthContext } from './route.ts';

// GET /oauth/authorize shows the consent page; POST /oauth/authorize (its form) approves or denies.
// Every error of the request itself shows an error page, never a redirect: clients register
// themselves (DCR), so none is vetted, and redirecting a malformed request to whatever URI a
// registrant chose would make this server an open redirector (RFC 9700 §4.11.2). Only the user's
// own decision (approve, deny) goes back to the client's redirect URI (RFC 6749 §4.1.2).
// PKCE S256 is required; the redirect URI must equal a registered one exactly.
// The consent form takes an API key, so its POST is metered per client address like the API's
// key lookups (a wrong key costs more); over the limit it shows a 429 page with Retry-After.
// A service may also let its signed-in person approve with one of their account's keys
// (options.sessionApproval): the page is then sealed with the session's binding, and the approval
// needs that same session, a same-origin form, and the service's own check of the chosen key.

const CHALLENGE = /^[A-Za-z0-9_-]{43}$/; // BASE64URL(SHA-256): 43 characters, no padding

function one(q: Record<string, unknown>, name: string): string | undefined {
  const v = q[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || v.length > 2_000) throw new InvalidRequestError(`${name} must be given once, as text`);
  return v;
}

function showError(s: OAuthContext, res: Response, status: number, message: string): void {
  res.status(status).set(pageHeaders([])).send(errorPage(s.options.assets, s.options.consent.productName, message));
}

function redirectTo(s: OAuthContext, res: Response, uri: string, params: Record<string, string | null | undefined>): void {
  const u = new URL(uri);
  for (const [k, v] of Object.entries(params)) if (v) u.searchParams.set(k, v);
  u.searchParams.set('iss', s.options.baseUrl); // RFC 9207: which server answered
  res.setHeader('Cache-Control', 'no-store');
  res.redirect(303, u.href);
}

interface Shown {
  status?: number;
  error?: string;
  /** The signed-in person of this request, when the service offers session approval. */
  session?: SessionApproval | null;
}

function showConsent(s: OAuthContext, res: Response, client: ClientDoc, request: AuthorizationRequest, shown: Shown = {}): void {
  const { session, ...rest } = request;
  const binding = shown.session?.binding ?? session;
  const sealed = sealRequest(s.options.sealSecret, binding === undefined ? rest : { ...rest, session: binding }, s.options.limits.consentTtlSeconds);
  const who = shown.session ? { who: shown.session.who, keys: shown.session.keys, note: shown.session.note } : null;
  const html = consentPage({ text: s.options.consent, assets: s.options.assets, clientName: client.client_name || client._id, redirectUri: request.redirect_uri, sealed, error: shown.error, session: who });
  res.status(shown.status ?? 200).set(pageHeaders([redirectSource(request.redirect_uri)])).send(html);
}

const signedIn = async (s: OAuthContext, req: Request, res: Response): Promise<SessionApproval | null> => (s.options.sessionApproval ? s.options.sessionApproval(req, res) : null);

async function showRequest(s: OAuthContext, req: Request, res: Response): Promise<void> {
  const q = req.query as Record<string, unknown>;
  let client: ClientDoc | null;
  let redirectUri: string | null;
  try {
    const clientId = one(q, 'client_id');
    if (!clientId) return showError(s, res, 400, 'The request has no client_id.');
    client = await s.store.getClient(clientId);
    if (!client) return showError(s, res, 400, 'Unknown client_id (or its registration lapsed).');
    redirectUri = pickRedirectUri(client.redirect_uris, one(q, 'redirect_uri'));
    if (!redirectUri) return showError(s, res, 400, 'redirect_uri does not match a redirect URI this client registered (exact match required).');
  } catch (err) {
    return showError(s, res, 400, (err as Error).message);
  }
  try {
    if (one(q, 'response_type') !== 'code') throw new UnsupportedResponseTypeError('response_type must be "code".');
    const challenge = one(q, 'code_challenge');
    if (!challenge) throw new InvalidRequestError('code_challenge is required (PKCE).');
    if (one(q, 'code_challenge_method') !== 'S256') throw new InvalidRequestError('code_challenge_method must be S256.');
    if (!CHALLENGE.test(challenge)) throw new InvalidRequestError('code_challenge must be 43 base64url characters (SHA-256).');
    const resource = checkResource(s.options.baseUrl, s.resourcePaths, one(q, 'resource'));
    const request = { client_id: client._id, redirect_uri: redirectUri, code_challenge: challenge, state: one(q, 'state') ?? null, scope: one(q, 'scope') ?? null, resource };
    showConsent(s, res, client, request, { session: await signedIn(s, req, res) });
  } catch (err) {
    if (!(err instanceof OAuthError)) throw err;
    showError(s, res, 400, `${client.client_name || 'The application'} sent an invalid authorization request (${err.errorCode}): ${err.message} Nothing was shared; tell the application's makers.`);
  }
}

async function grant(s: OAuthContext, res: Response, client: ClientDoc, request: AuthorizationRequest, checked: Extract<KeyCheck, { ok: true }>, how: string): Promise<void> {
  const { keyId, accountId } = checked;
  const code = await s.store.createCode({ clientId: client._id, keyId, accountId, codeChallenge: request.code_challenge, redirectUri: request.redirect_uri, resource: request.resource, scope: request.scope });
  s.options.log.info({ client_id: client._id, key_id: keyId, account_id: accountId, how }, 'oauth authorization approved');
  redirectTo(s, res, request.redirect_uri, { code, state: request.state });
}

/** Only a form of this origin approves as the signed-in person (the browser says where it was sent from). */
function crossSite(req: Request): boolean {
  const site = req.headers['sec-fetch-site'];
  if (typeof site === 'string') return site !== 'same-origin' && site !== 'none';
  const origin = req.headers.origin;
  if (typeof origin !== 'string') return false;
  try {
    return origin === 'null' || new URL(origin).host !== req.headers.host;
  } catch {
    return true;
  }
}

/** "Approve as <person> with key <name>": the session, this page's binding and the key are all checked again here. */
async function approveAsSignedIn(s: OAuthContext, req: Request, res: Response, client: ClientDoc, request: AuthorizationRequest, keyId: unknown): Promise<void> {
  const session = await signedIn(s, req, res);
  if (!session) return showConsent(s, res, client, request, { status: 401, error: 'You are no longer signed in, so nothing was approved. Sign in again and reload this page, or paste an API key.' });
  if (crossSite(req) || !request.session || !safeEqual(request.session, session.binding)) {
    return showConsent(s, res, client, request, { status: 403, session, error: 'This page was opened in another session, so nothing was approved. Check the request below and approve again.' });
  }
  if (typeof keyId !== 'string' || !keyId || keyId.length > 200) return showConsent(s, res, client, request, { status: 400, session, error: 'Choose one of the keys.' });
  const checked = await session.approve(keyId);
  if (!checked.ok) return showConsent(s, res, client, request, { status: 400, session, error: checked.message });
  await grant(s, res, client, request, checked, 'session');
}

async function decide(s: OAuthContext, req: Request, res: Response): Promise<void> {
  const wait = await s.meter(req, res);
  if (wait !== null) return showError(s, res, 429, `Too many attempts from your network; wait ${wait} seconds and try again.`);
  const body = bodyOf(req);
  const request = openRequest(s.options.sealSecret, body.request);
  if (!request) return showError(s, res, 400, 'This consent page has expired or was altered. Start the connection again from your application.');
  const client = await s.store.getClient(request.client_id);
  if (!client || !client.redirect_uris.includes(request.redirect_uri)) return showError(s, res, 400, 'The client is no longer registered.');
  if (body.decision !== 'approve') return redirectTo(s, res, request.redirect_uri, { error: 'access_denied', error_description: 'The user denied the request.', state: request.state });
  if (body.key_id !== undefined) return approveAsSignedIn(s, req, res, client, request, body.key_id);
  const key = typeof body.api_key === 'string' ? body.api_key.trim() : '';
  // The page shown again keeps offering the signed-in person's keys.
  const again = async (status: number, error: string) => showConsent(s, res, client, request, { status, error, session: request.session ? await signedIn(s, req, res) : null });
  if (!s.options.keys.looksLikeKey(key)) return again(400, s.options.consent.shapeHint);
  const checked = await s.options.keys.verify(key);
  if (!checked.ok) {
    if (checked.wrongKey) await s.failed(req);
    return again(400, checked.message);
  }
  await grant(s, res, client, request, checked, 'pasted key');
}

/**
 * The consent step answers a browser, so a failure is an error page (never OAuth JSON, and never a
 * redirect to a URI that may not have been checked yet).
 */
function pageHandler(what: string, step: (s: OAuthContext, req: Request, res: Response) => Promise<void>) {
  return async ({ ctx, req, res }: { ctx: OAuthContext; req: Request; res: Response }): Promise<void> => {
    try {
      await step(ctx, req, res);
    } catch (err) {
      ctx.options.log.error({ err: (err as Error).message }, `${what} failed`);
      if (res.headersSent) return void res.destroy();
      showError(ctx, res, 503, 'The service could not complete this step; try again in a moment.');
    }
  };
}

const common = { ...OAUTH_ROUTE, path: '/oauth/authorize' };

export const authorizeRoutes = [
  defineOAuthRoute({ ...common, method: 'get', operationId: 'oauthAuthorize', summary: 'OAuth consent page', handle: pageHandler('consent page', showRequest) }),
  defineOAuthRoute({ ...common, method: 'post', operationId: 'oauthAuthorizeDecision', summary: 'OAuth consent decision', handle: pageHandler('consent decision', decide) }),
];
