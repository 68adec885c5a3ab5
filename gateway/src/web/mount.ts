import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import { csrfProtection, pageSecurityHeaders, readCookie } from '@dv/web';
import type { GatewayContext } from '../context.ts';
import { GATEWAY_DEFAULTS as D } from '../defaults.ts';
import { createConsoleContext, type ConsoleContext } from './context.ts';
import { errorView, mountPages, PageError } from './page.ts';
import { CONSOLE_PAGES } from './pages/index.ts';
import { sendPage } from './render.ts';
import { SESSION_COOKIE } from './viewer.ts';

// The verification console under /app/ (docs/console.md), on the API's own express app and
// origin: the same services and stores as the /v1 routes, the pages' security headers, a small
// form parser, CSRF on every state-changing request, and error pages instead of problem+json.

function errorPage(cc: ConsoleContext) {
  return (err: unknown, req: Request, res: Response, next: NextFunction): void => {
    if (res.headersSent) return next(err);
    const e = err as { type?: string; status?: number };
    let page: PageError;
    if (e?.type === 'entity.too.large') page = new PageError(413, 'Too large', 'That form was larger than the console accepts. Shorten what you typed and send it again.');
    else if (e?.status && e.status >= 400 && e.status < 500) page = new PageError(e.status, 'That did not work', 'The request could not be read. Go back, reload the page and try again.');
    else {
      cc.api.log.error({ err: (err as Error)?.message, path: req.path }, 'console page failed');
      page = new PageError(500, 'Something went wrong', 'The page could not be made. Nothing was changed by this request; try again in a moment.');
    }
    sendPage(cc, req, res, null, errorView(page));
  };
}

export function mountConsole(app: Express, api: GatewayContext): ConsoleContext {
  const cc = createConsoleContext(api);
  app.use(cc.assets.handler);
  const router = express.Router();
  router.use(pageSecurityHeaders());
  router.use(express.urlencoded({ extended: false, limit: D.consoleFormMaxBytes }));
  router.use(
    csrfProtection({
      secret: cc.csrfSecret,
      sessionId: (req) => readCookie(req, SESSION_COOKIE),
      reject: (req, res, why) => sendPage(cc, req, res, null, errorView(new PageError(403, 'Refused', `Nothing was changed: ${why}. Reload the page and try again.`))),
    }),
  );
  mountPages(router, cc, CONSOLE_PAGES);
  router.use((req, res) => sendPage(cc, req, res, null, errorView(new PageError(404, 'Not found', `There is no page at ${req.originalUrl.slice(0, 200)}.`))));
  router.use(errorPage(cc));
  app.use('/app', router);
  return cc;
}
