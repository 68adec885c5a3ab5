import type { z } from 'zod';
import type { ZodOpenApiOperationObject, ZodOpenApiPathsObject, ZodOpenApiResponseObject, ZodOpenApiResponsesObject } from 'zod-openapi';
import type { HttpRoute } from './define.ts';

// Route definitions → OpenAPI 3.1 operations. The API adds its own error responses and security
// scheme (its error model is its own); createDocument (zod-openapi) is called by the API.

type Security = NonNullable<ZodOpenApiOperationObject['security']>;

export interface OperationOptions<Ctx, Caller> {
  /** Security requirement of authenticated routes, e.g. `[{ bearerKey: [] }]`; `auth: 'optional'` routes add `{}` (none) before it. */
  security?: Security;
  /** Error responses a route can give besides its own (auth, validation, limits). */
  commonResponses?: (route: HttpRoute<Ctx, Caller>) => ZodOpenApiResponsesObject;
}

function routeSecurity(auth: HttpRoute<unknown, unknown>['auth'], security: Security): Security {
  if (auth === false) return [];
  return auth === 'optional' ? [{}, ...security] : security;
}

export function routeOperation<Ctx, Caller>(def: HttpRoute<Ctx, Caller>, opts: OperationOptions<Ctx, Caller> = {}): ZodOpenApiOperationObject {
  const requestParams: NonNullable<ZodOpenApiOperationObject['requestParams']> = {};
  if (def.params) requestParams.path = def.params;
  if (def.query) requestParams.query = def.query;
  if (def.headers) requestParams.header = def.headers;
  const content = { ...(def.body ? { 'application/json': { schema: def.body } } : {}), ...def.requestBodyExtra };
  return {
    operationId: def.operationId,
    summary: def.summary,
    ...(def.description ? { description: def.description } : {}),
    tags: [...def.tags],
    ...(Object.keys(requestParams).length > 0 ? { requestParams } : {}),
    ...(Object.keys(content).length > 0 ? { requestBody: { required: true, content } } : {}),
    ...(opts.security ? { security: routeSecurity(def.auth, opts.security) } : {}),
    responses: { ...opts.commonResponses?.(def), ...def.responses },
  };
}

export function routePaths<Ctx, Caller>(routes: readonly HttpRoute<Ctx, Caller>[], opts: OperationOptions<Ctx, Caller> = {}): ZodOpenApiPathsObject {
  const paths: Record<string, Record<string, ZodOpenApiOperationObject>> = {};
  for (const route of routes) (paths[route.path] ??= {})[route.method] = routeOperation(route, opts);
  return paths;
}

/** A documented JSON response. */
export function jsonResponse(description: string, schema: z.ZodType, headers?: z.ZodObject): ZodOpenApiResponseObject {
  return { description, content: { 'application/json': { schema } }, ...(headers ? { headers } : {}) };
}
