import type { Express } from 'express';
import type { GatewayContext } from './context.ts';
import { mountErrorHandlers, mountRoutes, type RouteDef } from './http/route.ts';
import { accountRoute } from './routes/account.ts';
import { downloadsNdjsonRoute } from './routes/downloads-ndjson.ts';
import { downloadsRoute } from './routes/downloads.ts';
import { eventsRoute } from './routes/events.ts';
import { healthRoute } from './routes/health.ts';
import { jobCancelRoute } from './routes/job-cancel.ts';
import { jobGetRoute } from './routes/job-get.ts';
import { jobResultsRoute } from './routes/job-results.ts';
import { jobsCreateRoute } from './routes/jobs-create.ts';
import { jobsListRoute } from './routes/jobs-list.ts';
import { lookupRoute } from './routes/lookup.ts';
import { mcpRoute } from './routes/mcp.ts';
import { mountGatewayOAuth } from './oauth/server.ts';
import { openapiRoute } from './routes/openapi.ts';
import { statusRoute } from './routes/status.ts';
import { verifyRoute } from './routes/verify.ts';
import type { ConsoleContext } from './web/context.ts';
import { mountConsole } from './web/mount.ts';

// Every /v1 route of the verification API, in one list: it mounts the app and generates the
// OpenAPI document. POST /mcp (JSON-RPC, described by MCP's tools/list) is mounted with the same
// route helper but kept out of the OpenAPI document, as are the OAuth endpoints for connector
// clients (@dv/oauth: RFC-defined shapes and errors, docs/oauth.md).

export function gatewayRoutes(): RouteDef[] {
  const routes: RouteDef[] = [healthRoute, verifyRoute, statusRoute, jobsCreateRoute, jobsListRoute, jobGetRoute, jobCancelRoute, jobResultsRoute, lookupRoute, eventsRoute, accountRoute, downloadsRoute, downloadsNdjsonRoute];
  routes.push(openapiRoute(() => routes));
  return routes;
}

/** Mounts the API, MCP, OAuth and the console; returns the console's context (tests sign people in through it). */
export function mountGateway(app: Express, ctx: GatewayContext): ConsoleContext {
  mountRoutes(app, ctx, gatewayRoutes());
  mountRoutes(app, ctx, [mcpRoute]);
  mountGatewayOAuth(app, ctx);
  const console = mountConsole(app, ctx);
  mountErrorHandlers(app, ctx);
  return console;
}
