import type { Express, Request, Response } from 'express';
import type { GatewayContext } from '../context.ts';
import { methodNotAllowed } from '../oauth/http.ts';
import { authorizationServerMetadata, protectedResourceMetadata } from '../oauth/metadata.ts';

// GET /.well-known/oauth-protected-resource[/mcp] (RFC 9728) and
// GET /.well-known/oauth-authorization-server[/mcp] (RFC 8414; the /mcp form is where clients that
// treat the MCP URL as the issuer look). Public, cacheable, CORS-open so browser-based clients can read them.

export function mountOAuthMetadata(app: Express, ctx: GatewayContext): void {
  const base = ctx.config.PUBLIC_BASE_URL;
  const docs: Record<string, unknown> = {
    '/.well-known/oauth-protected-resource': protectedResourceMetadata(base, ''),
    '/.well-known/oauth-protected-resource/mcp': protectedResourceMetadata(base, '/mcp'),
    '/.well-known/oauth-authorization-server': authorizationServerMetadata(base),
    '/.well-known/oauth-authorization-server/mcp': authorizationServerMetadata(base),
  };
  for (const [path, doc] of Object.entries(docs)) {
    app
      .route(path)
      .get((_req: Request, res: Response) => {
        res.setHeader('Cache-Control', 'public, max-age=3600');
        res.setHeader('Access-Control-Allow-Origin', '*');
        res.json(doc);
      })
      .all(methodNotAllowed(path, 'GET, HEAD'));
  }
}
