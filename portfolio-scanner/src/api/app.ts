import type { Express } from 'express';
import { httpsOnly, mountHttpRoutes, mountRouteErrors } from '@dv/runtime';
import { PORTFOLIO_DEFAULTS } from '../defaults.ts';
import { authenticate } from './auth.ts';
import type { ApiContext } from './context.ts';
import { invalidInput, sendError, sendOk, toPortfolioError } from './envelope.ts';
import { PortfolioError } from './errors.ts';
import { portfolioRoutes } from './routes/index.ts';

// Mounts the portfolio API (docs/portfolio-scanner.md "API") on the process's express app, with
// its own 404 and error handler: every response but /healthz, /readyz and /metrics is the envelope,
// malformed JSON and oversized bodies (parsed before any route) included. HTTPS only
// (requirePortfolioHttps) for the API and whatever was mounted before it on the same terms.
export function mountPortfolioApi(app: Express, ctx: ApiContext): void {
  requirePortfolioHttps(app);
  mountHttpRoutes(app, portfolioRoutes(), {
    ctx,
    authenticate: (req, res) => authenticate(ctx, req, res),
    invalid: (issues) => invalidInput(issues),
    notJson: () => new PortfolioError('invalid_request', 'Send the body as application/json.'),
    methodNotAllowed: (method, path, allow) => new PortfolioError('method_not_allowed', `${method} is not supported on ${path}; use ${allow}.`, { Allow: allow }),
    send: sendOk,
  });
  mountRouteErrors(app, {
    notFound: (req) => new PortfolioError('not_found', `No route for ${req.method} ${req.path}; see /api/v1/openapi.json.`),
    render: (err, req, res) => sendError(res, toPortfolioError(err, req, ctx.log)),
  });
}

/**
 * HTTPS only (spec; docs/portfolio-scanner.md "HTTPS only") for everything mounted after it: plain
 * HTTP from another machine is 403 https_required before any route or key lookup; HTTPS answers
 * carry Strict-Transport-Security. Idempotent, so whatever mounts first on this process's app (the
 * MCP connector, then the API) calls it and nothing is mounted outside it.
 */
export function requirePortfolioHttps(app: Express): void {
  if (app.locals.portfolioHttpsOnly === true) return;
  app.locals.portfolioHttpsOnly = true;
  app.use(httpsOnly({ hstsMaxAgeS: PORTFOLIO_DEFAULTS.apiHstsMaxAgeS, refuse: httpsRequired }));
}

/** The Host header is the client's to choose, so the detail names no URL. */
function httpsRequired(): PortfolioError {
  return new PortfolioError('https_required', 'This API answers HTTPS only: send the same request to the https:// address. A key already sent over plain HTTP should be revoked.');
}
