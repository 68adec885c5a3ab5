import type { Express, Request, Response } from 'express';
import { mountHttpRoutes, TooManyAuthAttempts } from '@dv/runtime';
import { clientAddress, formBody } from './http.ts';
import { resourceMetadataUrl } from './metadata.ts';
import type { OAuthServerOptions } from './options.ts';
import { authorizeRoutes } from './routes/authorize.ts';
import { metadataRoutes } from './routes/metadata.ts';
import { mountRegister } from './routes/register.ts';
import { revokeRoute } from './routes/revoke.ts';
import { mountTokenPreflight, tokenRoute } from './routes/token.ts';
import type { OAuthContext, OAuthRoute } from './routes/route.ts';
import { OAuthStore } from './store.ts';

// One service's OAuth 2.1 authorization server for its MCP connector (docs/oauth.md): the store,
// the endpoints (mounted with the shared route helper, each answering in OAuth's own error shape)
// and what its resource server needs to send clients here (the Bearer challenge of a 401).

const FORM_PATHS = ['/oauth/authorize', '/oauth/token', '/oauth/revoke'];

export class OAuthServer implements OAuthContext {
  readonly options: OAuthServerOptions;
  readonly store: OAuthStore;

  constructor(options: OAuthServerOptions) {
    this.options = { ...options, baseUrl: options.baseUrl.replace(/\/+$/, '') };
    const l = options.limits;
    this.store = new OAuthStore(options.db, {
      collections: options.collections,
      tokenPrefixes: options.tokenPrefixes,
      ttl: { codeSeconds: l.codeTtlSeconds, accessSeconds: l.accessTtlSeconds, refreshSeconds: l.refreshTtlSeconds, clientUnusedSeconds: l.clientUnusedTtlSeconds },
      ...(options.marks ? { marks: options.marks } : {}),
    });
  }

  get resourcePaths(): string[] {
    return this.options.resources.map((r) => r.path);
  }

  /** Mounts every endpoint; before the service's own 404 handler. */
  mount(app: Express): void {
    mountRegister(app, this);
    mountTokenPreflight(app);
    // Form-encoded bodies, as OAuth requires (the route helper parses JSON only).
    for (const path of FORM_PATHS) app.post(path, formBody);
    const routes: OAuthRoute[] = [...metadataRoutes(this), ...authorizeRoutes, tokenRoute, revokeRoute];
    mountHttpRoutes(app, routes, {
      ctx: this,
      invalid: () => new Error('no OAuth route validates with a schema'),
      notJson: () => new Error('no OAuth route takes a JSON body'),
      methodNotAllowed: this.options.methodNotAllowed,
      send: (res, reply) => void res.status(reply.status).json(reply.body),
    });
  }

  /** RFC 6750 §3 / RFC 9728 §5.1: the WWW-Authenticate value of a 401 on `requestPath`. */
  bearerChallenge(requestPath: string, invalidToken: boolean): string {
    return `Bearer resource_metadata="${resourceMetadataUrl(this.options.baseUrl, this.options.resources, requestPath)}"${invalidToken ? ', error="invalid_token"' : ''}`;
  }

  /**
   * Meters one credential attempt from the request's address. Over the limit: sets Retry-After
   * and returns the seconds to wait, for the endpoint to answer in its own shape; else null.
   */
  async meter(req: Request, res: Response): Promise<number | null> {
    if (!this.options.attempts) return null;
    try {
      await this.options.attempts.attempt(clientAddress(req));
      return null;
    } catch (err) {
      if (!(err instanceof TooManyAuthAttempts)) throw err;
      res.setHeader('Retry-After', String(err.retryAfterSeconds));
      return err.retryAfterSeconds;
    }
  }

  /** A refused credential costs the address more. */
  async failed(req: Request): Promise<void> {
    await this.options.attempts?.failed(clientAddress(req));
  }
}
