import { authenticateClient } from '../client-auth.ts';
import { bodyOf, formField, oauthHandler } from '../http.ts';
import { defineOAuthRoute } from './route.ts';

// POST /oauth/revoke (RFC 7009): revoking an access or a refresh token ends the whole grant (both
// tokens). Unknown or already revoked tokens answer 200 as well, so the endpoint reveals nothing.

export const revokeRoute = defineOAuthRoute({
  method: 'post',
  path: '/oauth/revoke',
  operationId: 'oauthRevoke',
  summary: 'OAuth token revocation',
  tags: ['oauth'],
  auth: false,
  responses: {},
  handle: ({ ctx, req, res }) =>
    oauthHandler(ctx.options.log, async () => {
      res.setHeader('Access-Control-Allow-Origin', '*');
      const body = bodyOf(req);
      const client = await authenticateClient(ctx.store, body, req.headers);
      await ctx.store.revokeToken(client._id, formField(body, 'token', true));
      res.setHeader('Cache-Control', 'no-store');
      res.status(200).json({});
    })({ req, res }),
});
