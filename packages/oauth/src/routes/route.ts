import type { Request, Response } from 'express';
import { defineHttpRoute, type HttpRoute } from '@dv/runtime';
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
