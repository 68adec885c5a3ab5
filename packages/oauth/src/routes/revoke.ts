import { authenticateClient } from '../client-auth.ts';
import { bodyOf, formField } from '../http.ts';
import { oauthJsonEndpoint } from './route.ts';

// POST /oauth/revoke (RFC 7009): revoking an access or a refresh token ends the whole grant (both
// tokens). Unknown or already revoked tokens answer 200 as well, so the endpoint reveals nothing.

export const revokeRoute = oauthJsonEndpoint({
  path: '/oauth/revoke',
  operationId: 'oauthRevoke',
  summary: 'OAuth token revocation',
  run: async (ctx, req, res) => {
    const body = bodyOf(req);
    const client = await authenticateClient(ctx.store, body, req.headers);
    await ctx.store.revokeToken(client._id, formField(body, 'token', true));
    res.setHeader('Cache-Control', 'no-store');
    res.status(200).json({});
  },
});
