import { z } from 'zod';
import { defineRoute, type RouteDef } from '../http/route.ts';
import { buildOpenApiDocument } from '../openapi.ts';

// GET /v1/openapi.json: the OpenAPI 3.1 document generated from the route definitions.

export function openapiRoute(all: () => readonly RouteDef[]): RouteDef {
  let cached: unknown;
  return defineRoute({
    method: 'get',
    path: '/v1/openapi.json',
    operationId: 'openapi',
    summary: 'This OpenAPI 3.1 description (no key)',
    tags: ['meta'],
    auth: false,
    responses: { '200': { description: 'OpenAPI 3.1 document.', content: { 'application/json': { schema: z.looseObject({ openapi: z.string() }) } } } },
    handle: ({ ctx, res }) => {
      cached ??= buildOpenApiDocument(all(), ctx.config.PUBLIC_BASE_URL);
      res.setHeader('Cache-Control', 'public, max-age=300');
      res.json(cached);
    },
  });
}
