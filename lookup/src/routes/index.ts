import { keysRequestRoute } from './keys-request.ts';
import { keysVerifyPageRoute } from './keys-verify-page.ts';
import { keysVerifyRoute } from './keys-verify.ts';
import { limitsRoute } from './limits.ts';
import { mcpRoute } from './mcp.ts';
import { openapiRoute } from './openapi.ts';
import type { RouteDef } from './route.ts';
import { serviceIndexRoute } from './service-index.ts';
import { toolRoutes } from './tool.ts';
import { validateGetRoute, validatePostRoute } from './validate.ts';

/** Every HTTP route of the service, in the order the OpenAPI document lists them. */
export const ROUTES: readonly RouteDef[] = [
  serviceIndexRoute,
  ...toolRoutes,
  validatePostRoute,
  validateGetRoute,
  limitsRoute,
  keysRequestRoute,
  keysVerifyPageRoute,
  keysVerifyRoute,
  mcpRoute,
  openapiRoute(() => ROUTES),
];
