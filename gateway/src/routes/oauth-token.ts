import type { Express } from 'express';
import { InvalidClientError, InvalidGrantError, InvalidRequestError, TooManyRequestsError, UnsupportedGrantTypeError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { GatewayContext } from '../context.ts';
import { authenticateClient } from '../oauth/client-auth.ts';
import { authorizationCodeGrant, refreshTokenGrant } from '../oauth/grants.ts';
import { clientAddress, meterAuthAttempt } from '../http/route.ts';
import { bodyOf, formBody, methodNotAllowed, oauthHandler } from '../oauth/http.ts';

// POST /oauth/token (RFC 6749 §3.2): authorization_code (with the PKCE verifier) and refresh_token
// (rotating: each refresh token works once). Form-encoded, as the RFC requires; CORS-open so
// browser-based MCP clients can call it (no cookies are involved).
// Every request reads MongoDB (client, code or refresh token), so it is metered per client address
// before anything else (docs/gateway.md, abuse before authentication); a refused client or grant
// costs more. Over the limit: 429 in OAuth's error shape with Retry-After.

export function mountOAuthToken(app: Express, ctx: GatewayContext): void {
  const deps = { db: ctx.db, store: ctx.oauth, baseUrl: ctx.config.PUBLIC_BASE_URL };
  app
    .route('/oauth/token')
    .options((_req, res) => void res.set({ 'Access-Control-Allow-Origin': '*', 'Access-Control-Allow-Methods': 'POST', 'Access-Control-Allow-Headers': 'Authorization, Content-Type' }).status(204).end())
    .post(
      formBody,
      oauthHandler(ctx.log, async (req, res) => {
        res.setHeader('Access-Control-Allow-Origin', '*');
        if (!req.is('application/x-www-form-urlencoded')) throw new InvalidRequestError('Send the token request as application/x-www-form-urlencoded.');
        const wait = await meterAuthAttempt(ctx, req, res);
        if (wait !== null) throw new TooManyRequestsError(`Too many token requests from this address; retry in ${wait} s.`);
        const body = bodyOf(req);
        let tokens;
        try {
          const client = await authenticateClient(ctx.oauth, body, req.headers);
          const grant = body.grant_type;
          if (grant === 'authorization_code') tokens = await authorizationCodeGrant(deps, client, body);
          else if (grant === 'refresh_token') tokens = await refreshTokenGrant(deps, client, body);
          else throw new UnsupportedGrantTypeError('grant_type must be authorization_code or refresh_token.');
        } catch (err) {
          if (err instanceof InvalidClientError || err instanceof InvalidGrantError) await ctx.auth.attempts.failed(clientAddress(req));
          throw err;
        }
        res.setHeader('Cache-Control', 'no-store');
        res.setHeader('Pragma', 'no-cache');
        res.status(200).json(tokens);
      }),
    )
    .all(methodNotAllowed('/oauth/token', 'POST'));
}
