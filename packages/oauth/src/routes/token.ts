import type { Express } from 'express';
import { InvalidClientError, InvalidGrantError, InvalidRequestError, TooManyRequestsError, UnsupportedGrantTypeError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { authenticateClient } from '../client-auth.ts';
import { authorizationCodeGrant, refreshTokenGrant, type GrantDeps } from '../grants.ts';
import { bodyOf } from '../http.ts';
import { oauthJsonEndpoint, type OAuthContext } from './route.ts';

// POST /oauth/token (RFC 6749 §3.2): authorization_code (with the PKCE verifier) and refresh_token
// (rotating: each refresh token works once). Form-encoded, as the RFC requires; CORS-open so
// browser-based MCP clients can call it (no cookies are involved).
// Every request reads MongoDB (client, code or refresh token), so it is metered per client address
// before anything else (abuse before authentication); a refused client or grant costs more. Over
// the limit: 429 in OAuth's error shape with Retry-After.

/** CORS preflight of browser-based clients (the route helper serves the methods it was given only). */
export function mountTokenPreflight(app: Express): void {
  app.options('/oauth/token', (_req, res) => void res.set({ 'Access-Control-Allow-Origin': '*', 'Access-Control-Allow-Methods': 'POST', 'Access-Control-Allow-Headers': 'Authorization, Content-Type' }).status(204).end());
}

function grantDeps(s: OAuthContext): GrantDeps {
  return { store: s.store, baseUrl: s.options.baseUrl, resourcePaths: s.resourcePaths, scope: s.options.scope, isActive: s.options.keys.isActive };
}

export const tokenRoute = oauthJsonEndpoint({
  path: '/oauth/token',
  operationId: 'oauthToken',
  summary: 'OAuth token endpoint',
  run: async (ctx, req, res) => {
    if (!req.is('application/x-www-form-urlencoded')) throw new InvalidRequestError('Send the token request as application/x-www-form-urlencoded.');
    const wait = await ctx.meter(req, res);
    if (wait !== null) throw new TooManyRequestsError(`Too many token requests from this address; retry in ${wait} s.`);
    const body = bodyOf(req);
    let tokens: OAuthTokens;
    try {
      const client = await authenticateClient(ctx.store, body, req.headers);
      const grant = body.grant_type;
      if (grant === 'authorization_code') tokens = await authorizationCodeGrant(grantDeps(ctx), client, body);
      else if (grant === 'refresh_token') tokens = await refreshTokenGrant(grantDeps(ctx), client, body);
      else throw new UnsupportedGrantTypeError('grant_type must be authorization_code or refresh_token.');
    } catch (err) {
      if (err instanceof InvalidClientError || err instanceof InvalidGrantError) await ctx.failed(req);
      throw err;
    }
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Pragma', 'no-cache');
    res.status(200).json(tokens);
  },
});
