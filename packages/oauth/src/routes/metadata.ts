import { wellKnownDocuments } from '../metadata.ts';
import { defineOAuthRoute, OAUTH_ROUTE, type OAuthContext, type OAuthRoute } from './route.ts';

// GET /.well-known/oauth-protected-resource[<resource path>] (RFC 9728) and
// GET /.well-known/oauth-authorization-server[<resource path>] (RFC 8414). Public, cacheable,
// CORS-open so browser-based clients can read them.

export function metadataRoutes(server: OAuthContext): OAuthRoute[] {
  return Object.entries(wellKnownDocuments(server.options, server.options.resources)).map(([path, doc]) =>
    defineOAuthRoute({
      ...OAUTH_ROUTE,
      method: 'get',
      path,
      operationId: `oauthMetadata${path}`,
      summary: 'OAuth discovery document',
      handle: ({ res }) => {
        res.setHeader('Cache-Control', 'public, max-age=3600');
        res.setHeader('Access-Control-Allow-Origin', '*');
        res.json(doc);
      },
    }),
  );
}
