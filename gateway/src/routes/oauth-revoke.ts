import type { Express } from 'express';
import type { GatewayContext } from '../context.ts';
import { authenticateClient } from '../oauth/client-auth.ts';
import { bodyOf, formBody, formField, methodNotAllowed, oauthHandler } from '../oauth/http.ts';

// POST /oauth/revoke (RFC 7009): revoking an access or a refresh token ends the whole grant (both
// tokens). Unknown or already revoked tokens answer 200 as well, so the endpoint reveals nothing.

export function mountOAuthRevoke(app: Express, ctx: GatewayContext): void {
  app
    .route('/oauth/revoke')
    .post(
      formBody,
      oauthHandler(ctx.log, async (req, res) => {
        res.setHeader('Access-Control-Allow-Origin', '*');
        const body = bodyOf(req);
        const client = await authenticateClient(ctx.oauth, body, req.headers);
        await ctx.oauth.revokeToken(client._id, formField(body, 'token', true));
        res.setHeader('Cache-Control', 'no-store');
        res.status(200).json({});
      }),
    )
    .all(methodNotAllowed('/oauth/revoke', 'POST'));
}
