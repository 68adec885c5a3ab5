import type { Express } from 'express';
import { mountHttpRoutes } from '@dv/runtime';
import type { OAuthServer } from '@dv/oauth';
import { requirePortfolioHttps } from '../api/app.ts';
import type { ApiContext } from '../api/context.ts';
import { invalidInput, sendOk } from '../api/envelope.ts';
import { PortfolioError } from '../api/errors.ts';
import { authenticateConnector } from './auth.ts';
import { mcpRoute } from './route.ts';

// The portfolio MCP connector (docs/portfolio-scanner.md "MCP connector"): POST /mcp and its OAuth
// authorization server (/oauth/*, /.well-known/oauth-*), on the API roles. Mount before
// mountPortfolioApi, whose 404 and error handler (the API's envelope) then serve these paths too.

export { connectorOAuth, MCP_PATH, MCP_SCOPE, type ConnectorOAuthOptions } from './oauth.ts';
export { MCP_TOOL_NAMES } from './server.ts';
export { MCP_PROMPT_NAMES } from './prompts.ts';
export { MCP_RESOURCE_URIS } from './resources.ts';

export function mountPortfolioConnector(app: Express, ctx: ApiContext, oauth: OAuthServer): void {
  // HTTPS only, like the API (it is the same service's surface; spec "Only HTTPS is accepted").
  requirePortfolioHttps(app);
  // The consent page's stylesheet and icon (/assets/<hashed name>), on the same terms as the page.
  app.use(oauth.options.assets.handler);
  oauth.mount(app);
  mountHttpRoutes(app, [mcpRoute], {
    ctx,
    authenticate: (req, res) => authenticateConnector(ctx, oauth, req, res),
    invalid: (issues) => invalidInput(issues),
    notJson: () => new PortfolioError('invalid_request', 'Send the JSON-RPC message as application/json.'),
    methodNotAllowed: (method, path, allow) => new PortfolioError('method_not_allowed', `${method} is not supported on ${path}; use ${allow} (the connector is stateless: no SSE stream, no session to end).`, { Allow: allow }),
    send: sendOk,
  });
}
