import { z } from 'zod';
import { buildOpenApiDocument } from '../openapi.ts';
import { defineRoute, type RouteDef } from './route.ts';

// GET /openapi.json: the generated OpenAPI 3.1 description of every route, this one included.

export type OpenApiResponse = ReturnType<typeof buildOpenApiDocument>;

export function openapiRoute(allRoutes: () => readonly RouteDef[]): RouteDef {
  let cached: OpenApiResponse | undefined;
  return defineRoute({
    method: 'get',
    path: '/openapi.json',
    operationId: 'openapi',
    summary: 'This OpenAPI 3.1 description',
    tags: ['meta'],
  auth: false,
    responses: { '200': { description: 'OpenAPI 3.1 document.', content: { 'application/json': { schema: z.looseObject({ openapi: z.string() }) } } } },
    handle: ({ ctx, res }) => {
      cached ??= buildOpenApiDocument(allRoutes(), ctx.config);
      res.setHeader('Cache-Control', 'public, max-age=300');
      res.json(cached);
    },
  });
}
