import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import { csrfProtection, mountPages, pageSecurityHeaders, PageError } from '@dv/web';
import type { LookupContext } from '../context.ts';
import { LOOKUP_DEFAULTS as D } from '../defaults.ts';
import { TOOLS } from '../tools.ts';
import { LOOKUP_PAGES } from './pages/index.ts';
import { errorView, lookupRenderer, sendPage } from './render.ts';

// The lookup's web pages (docs/lookup.md "Web pages"), on the API's own express app and origin:
// the same services, cache and quotas as the REST routes. Only page paths pass through the page
// router (the home page at / for a client that prefers HTML, /search, /key and the tools'
// permalinks); /v1, /mcp and the rest keep the API's JSON and problem+json answers, 404s included.

/** First path segments that belong to pages: the tools' permalinks `/<slug>/<target>` among them. */
const PAGE_SECTIONS: ReadonlySet<string> = new Set(['search', 'key', ...TOOLS.map((t) => t.slug)]);

/** Paths that are never pages, whatever the client accepts. */
const API_PREFIXES = ['/v1', '/mcp', '/openapi.json', '/healthz', '/readyz', '/metrics', '/assets/', '/.well-known'];

export function prefersHtml(req: Request): boolean {
  return req.accepts(['application/json', 'text/html']) === 'text/html';
}

function isPageRequest(req: Request): boolean {
  if (req.path === '/') return (req.method === 'GET' || req.method === 'HEAD') && prefersHtml(req);
  return PAGE_SECTIONS.has(req.path.split('/')[1] ?? '');
}

function errorPage(ctx: LookupContext) {
  return (err: unknown, req: Request, res: Response, next: NextFunction): void => {
    if (res.headersSent) return next(err);
    const e = err as { type?: string; status?: number };
    let page: PageError;
    if (e?.type === 'entity.too.large') page = new PageError(413, 'Too large', 'That form was larger than these pages accept. Shorten what you typed and send it again.');
    else if (e?.status && e.status >= 400 && e.status < 500) page = new PageError(e.status, 'That did not work', 'The request could not be read. Go back, reload the page and try again.');
    else {
      ctx.log.error({ err: (err as Error)?.message, path: req.path }, 'lookup page failed');
      page = new PageError(500, 'Something went wrong', 'The page could not be made. Nothing was changed by this request; try again in a moment.');
    }
    sendPage(ctx, req, res, errorView(page));
  };
}

const notFoundPage = (ctx: LookupContext) => (req: Request, res: Response) =>
  sendPage(ctx, req, res, errorView(new PageError(404, 'Not found', `There is no page at ${req.path.slice(0, 200)}. Start from the tools page.`)));

/** Mount before the API's routes: the assets and the page router. */
export function mountLookupWeb(app: Express, ctx: LookupContext): void {
  app.use(ctx.web.assets.handler);
  const router = express.Router();
  router.use((req, res, next) => {
    // One address, two answers (this page, the JSON index): shared caches must tell them apart.
    if (req.path === '/') res.vary('Accept');
    next(isPageRequest(req) ? undefined : 'router');
  });
  router.use(pageSecurityHeaders());
  router.use(express.urlencoded({ extended: false, limit: D.webFormMaxBytes }));
  router.use(
    csrfProtection({
      secret: ctx.web.csrfSecret,
      // No sessions on the lookup: every form's token is bound to the anonymous cookie.
      sessionId: () => undefined,
      reject: (req, res, why) => sendPage(ctx, req, res, errorView(new PageError(403, 'Refused', `Nothing was changed: ${why}. Reload the page and try again.`))),
    }),
  );
  mountPages(router, ctx, LOOKUP_PAGES, lookupRenderer(ctx));
  router.use(notFoundPage(ctx));
  router.use(errorPage(ctx));
  app.use(router);
}

/** Mount after the API's routes: a browser asking for an unknown address outside the API gets a page, not JSON. */
export function mountLookupWebNotFound(app: Express, ctx: LookupContext): void {
  const page = notFoundPage(ctx);
  app.use((req, res, next) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || API_PREFIXES.some((p) => req.path.startsWith(p)) || !prefersHtml(req)) return next();
    pageSecurityHeaders()(req, res, () => page(req, res));
  });
}
