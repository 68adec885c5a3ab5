import type { ZodOpenApiOperationObject, ZodOpenApiPathsObject, ZodOpenApiResponsesObject } from 'zod-openapi';
import type { HttpRoute } from './define.ts';

// Route definitions → OpenAPI 3.1 operations. The API adds its own error responses and security
// scheme (its error model is its own); createDocument (zod-openapi) is called by the API.

export interface OperationOptions<Ctx, Caller> {
  /** Security requirement of authenticated routes, e.g. `[{ bearerKey: [] }]`. */
  security?: ZodOpenApiOperationObject['security'];
  /** Error responses a route can give besides its own (auth, validation, limits). */
  commonResponses?: (route: HttpRoute<Ctx, Caller>) => ZodOpenApiResponsesObject;
}

export function routeOperation<Ctx, Caller>(def: HttpRoute<Ctx, Caller>, opts: OperationOptions<Ctx, Caller> = {}): ZodOpenApiOperationObject {
  const requestParams: NonNullable<ZodOpenApiOperationObject['requestParams']> = {};
  if (def.params) requestParams.path = def.params;
  if (def.query) requestParams.query = def.query;
  const auth = def.auth !== false;
  return {
    operationId: def.operationId,
    summary: def.summary,
    ...(def.description ? { description: def.description } : {}),
    tags: def.tags,
    ...(Object.keys(requestParams).length > 0 ? { requestParams } : {}),
    ...(def.body ? { requestBody: { required: true, content: { 'application/json': { schema: def.body } } } } : {}),
    ...(opts.security ? { security: auth ? opts.security : [] } : {}),
    responses: { ...opts.commonResponses?.(def), ...def.responses },
  };
}

export function routePaths<Ctx, Caller>(routes: readonly HttpRoute<Ctx, Caller>[], opts: OperationOptions<Ctx, Caller> = {}): ZodOpenApiPathsObject {
  const paths: Record<string, Record<string, ZodOpenApiOperationObject>> = {};
  for (const route of routes) (paths[route.path] ??= {})[route.method] = routeOperation(route, opts);
  return paths;
}
