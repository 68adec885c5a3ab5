import type { Request, Response } from 'express';
import { defineHttpRoute, type HttpRoute } from '@dv/runtime';
import { oauthHandler } from '../http.ts';
import type { OAuthServerOptions } from '../options.ts';
import type { OAuthStore } from '../store.ts';

// The OAuth endpoints on the shared route helper: no caller (they are the way to become one), no
// schema (RFC-defined form fields, checked one by one), answers written by the handlers in OAuth's
// error shape; the helper gives them the service's 405 with Allow.

/** What the endpoints use of their OAuthServer (server.ts). */
export interface OAuthContext {
  readonly options: OAuthServerOptions;
  readonly store: OAuthStore;
  readonly resourcePaths: string[];
  meter(req: Request, res: Response): Promise<number | null>;
  failed(req: Request): Promise<void>;
}

export const defineOAuthRoute = defineHttpRoute<OAuthContext, undefined>();
export type OAuthRoute = HttpRoute<OAuthContext, undefined>;

/** What every OAuth endpoint declares alike: tag oauth, no caller, answers written by the handler. */
export const OAUTH_ROUTE = { tags: ['oauth'], auth: false as const, responses: {} };

/**
 * A POST endpoint answering JSON to OAuth clients (token, revocation): CORS-open, as browser-based
 * MCP clients call it (no cookies are involved), and its errors in OAuth's shape (http.ts).
 */
export function oauthJsonEndpoint(def: { path: string; operationId: string; summary: string; run: (ctx: OAuthContext, req: Request, res: Response) => Promise<void> }): OAuthRoute {
  return defineOAuthRoute({
    ...OAUTH_ROUTE,
    method: 'post',
    path: def.path,
    operationId: def.operationId,
    summary: def.summary,
    handle: ({ ctx, req, res }) =>
      oauthHandler(ctx.options.log, async () => {
        res.setHeader('Access-Control-Allow-Origin', '*');
        await def.run(ctx, req, res);
      })({ req, res }),
  });
}
