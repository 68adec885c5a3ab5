import type { Express } from 'express';
import { mountHttpRoutes, mountRouteErrors } from '@dv/runtime';
import { authenticate } from './auth.ts';
import type { ApiContext } from './context.ts';
import { invalidInput, sendError, sendOk, toPortfolioError } from './envelope.ts';
import { PortfolioError } from './errors.ts';
import { portfolioRoutes } from './routes/index.ts';

// Mounts the portfolio API (docs/portfolio-scanner.md "API") on the process's express app, with
// its own 404 and error handler: every response but /healthz, /readyz and /metrics is the envelope,
// malformed JSON and oversized bodies (parsed before any route) included.
export function mountPortfolioApi(app: Express, ctx: ApiContext): void {
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
