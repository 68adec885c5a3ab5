import type { Express, Request, RequestHandler, Response } from 'express';
import { parseKey } from '@dv/accounts';
import { ApiError } from '@dv/runtime';
import { InvalidRequestError, OAuthError, UnsupportedResponseTypeError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { GatewayContext } from '../context.ts';
import { GATEWAY_DEFAULTS as D } from '../defaults.ts';
import { clientAddress, meterAuthAttempt } from '../http/route.ts';
import { consentPage, errorPage, pageHeaders, redirectSource } from '../oauth/consent-page.ts';
import { openRequest, sealRequest, type AuthorizationRequest } from '../oauth/consent-request.ts';
import { bodyOf, formBody, methodNotAllowed } from '../oauth/http.ts';
import { checkResource, pickRedirectUri } from '../oauth/policy.ts';
import type { ClientDoc } from '../oauth/store.ts';

// GET /oauth/authorize shows the consent page; POST /oauth/authorize (its form) approves or denies.
// Errors before the client and its redirect URI are known show an error page (never a redirect to
// an unchecked URI); later ones go back to the client as `error=` on its redirect URI (RFC 6749
// §4.1.2.1). PKCE S256 is required; the redirect URI must equal a registered one exactly.
// The consent form takes an API key, so its POST is metered per client address like the API's
// key lookups (a wrong key costs more); over the limit it shows a 429 page with Retry-After.

const PRODUCT = 'Email verification';
const CHALLENGE = /^[A-Za-z0-9_-]{43}$/; // BASE64URL(SHA-256): 43 characters, no padding

function one(q: Record<string, unknown>, name: string): string | undefined {
  const v = q[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || v.length > 2_000) throw new InvalidRequestError(`${name} must be given once, as text`);
  return v;
}

function showError(res: Response, status: number, message: string): void {
  res.status(status).set(pageHeaders([])).send(errorPage(PRODUCT, message));
}

function redirectTo(res: Response, uri: string, params: Record<string, string | null | undefined>, ctx: GatewayContext): void {
  const u = new URL(uri);
  for (const [k, v] of Object.entries(params)) if (v) u.searchParams.set(k, v);
  u.searchParams.set('iss', ctx.config.PUBLIC_BASE_URL); // RFC 9207: which server answered
  res.setHeader('Cache-Control', 'no-store');
  res.redirect(303, u.href);
}

function showConsent(res: Response, ctx: GatewayContext, client: ClientDoc, request: AuthorizationRequest, status = 200, error?: string): void {
  const sealed = sealRequest(ctx.downloadSecret, request, D.oauthConsentTtlSeconds);
  const html = consentPage({ productName: PRODUCT, clientName: client.client_name || client._id, redirectUri: request.redirect_uri, sealed, error });
  res.status(status).set(pageHeaders([redirectSource(request.redirect_uri)])).send(html);
}

async function showRequest(req: Request, res: Response, ctx: GatewayContext): Promise<void> {
  const q = req.query as Record<string, unknown>;
  let client: ClientDoc | null;
  let redirectUri: string | null;
  try {
    const clientId = one(q, 'client_id');
    if (!clientId) return showError(res, 400, 'The request has no client_id.');
    client = await ctx.oauth.getClient(clientId);
    if (!client) return showError(res, 400, 'Unknown client_id (or its registration lapsed).');
    redirectUri = pickRedirectUri(client.redirect_uris, one(q, 'redirect_uri'));
    if (!redirectUri) return showError(res, 400, 'redirect_uri does not match a redirect URI this client registered (exact match required).');
  } catch (err) {
    return showError(res, 400, (err as Error).message);
  }
  let state: string | undefined;
  try {
    state = one(q, 'state');
    if (one(q, 'response_type') !== 'code') throw new UnsupportedResponseTypeError('response_type must be "code".');
    const challenge = one(q, 'code_challenge');
    if (!challenge) throw new InvalidRequestError('code_challenge is required (PKCE).');
    if (one(q, 'code_challenge_method') !== 'S256') throw new InvalidRequestError('code_challenge_method must be S256.');
    if (!CHALLENGE.test(challenge)) throw new InvalidRequestError('code_challenge must be 43 base64url characters (SHA-256).');
    const resource = checkResource(ctx.config.PUBLIC_BASE_URL, one(q, 'resource'));
    showConsent(res, ctx, client, { client_id: client._id, redirect_uri: redirectUri, code_challenge: challenge, state: state ?? null, scope: one(q, 'scope') ?? null, resource });
  } catch (err) {
    if (!(err instanceof OAuthError)) throw err;
    redirectTo(res, redirectUri, { error: err.errorCode, error_description: err.message, state }, ctx);
  }
}

async function decide(req: Request, res: Response, ctx: GatewayContext): Promise<void> {
  const wait = await meterAuthAttempt(ctx, req, res);
  if (wait !== null) return showError(res, 429, `Too many attempts from your network; wait ${wait} seconds and try again.`);
  const body = bodyOf(req);
  const request = openRequest(ctx.downloadSecret, body.request);
  if (!request) return showError(res, 400, 'This consent page has expired or was altered. Start the connection again from your application.');
  const client = await ctx.oauth.getClient(request.client_id);
  if (!client || !client.redirect_uris.includes(request.redirect_uri)) return showError(res, 400, 'The client is no longer registered.');
  if (body.decision !== 'approve') return redirectTo(res, request.redirect_uri, { error: 'access_denied', error_description: 'The user denied the request.', state: request.state }, ctx);
  const key = typeof body.api_key === 'string' ? body.api_key.trim() : '';
  if (!parseKey(key)) return showConsent(res, ctx, client, request, 400, 'Paste an API key: it starts with dv_live_ or dv_test_.');
  let keyId: string;
  let accountId: string;
  try {
    const caller = await ctx.auth.authenticate(`Bearer ${key}`);
    keyId = caller.key._id;
    accountId = caller.account._id;
  } catch (err) {
    if (!(err instanceof ApiError) || err.status >= 500) throw err;
    if (err.code === 'invalid_api_key') await ctx.auth.attempts.failed(clientAddress(req));
    return showConsent(res, ctx, client, request, 400, String(err.detail));
  }
  const code = await ctx.oauth.createCode({ clientId: client._id, keyId, accountId, codeChallenge: request.code_challenge, redirectUri: request.redirect_uri, resource: request.resource, scope: request.scope });
  ctx.log.info({ client_id: client._id, key_id: keyId, account_id: accountId }, 'oauth authorization approved');
  redirectTo(res, request.redirect_uri, { code, state: request.state }, ctx);
}

/**
 * The consent step answers a browser, so a failure is an error page (never OAuth JSON, and never a
 * redirect to a URI that may not have been checked yet).
 */
function pageHandler(ctx: GatewayContext, what: string, step: (req: Request, res: Response, ctx: GatewayContext) => Promise<void>): RequestHandler {
  return (req: Request, res: Response) => {
    step(req, res, ctx).catch((err: unknown) => {
      ctx.log.error({ err: (err as Error).message }, `${what} failed`);
      if (res.headersSent) return void res.destroy();
      showError(res, 503, 'The service could not complete this step; try again in a moment.');
    });
  };
}

export function mountOAuthAuthorize(app: Express, ctx: GatewayContext): void {
  app
    .route('/oauth/authorize')
    .get(pageHandler(ctx, 'consent page', showRequest))
    .post(formBody, pageHandler(ctx, 'consent decision', decide))
    .all(methodNotAllowed('/oauth/authorize', 'GET, HEAD, POST'));
}
