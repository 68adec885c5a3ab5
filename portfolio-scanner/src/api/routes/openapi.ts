import { defineRoute, type HttpRoute } from '../route.ts';
import type { ApiCaller, ApiContext } from '../context.ts';
import { buildOpenApiDocument } from '../openapi.ts';

/** The document route over the given routes (itself included); built once, routes do not change while the process runs. */
export function openApiRoute(routes: () => readonly HttpRoute<ApiContext, ApiCaller>[]): HttpRoute<ApiContext, ApiCaller> {
  let doc: unknown;
  return defineRoute({
    method: 'get',
    path: '/api/v1/openapi.json',
    operationId: 'openapi',
    summary: 'This OpenAPI 3.1 document (no key needed)',
    tags: ['meta'],
    auth: false,
    responses: { '200': { description: 'The OpenAPI document (not in the envelope).', content: { 'application/json': {} } } },
    handle: ({ ctx, res }) => {
      doc ??= buildOpenApiDocument(routes(), ctx.publicBaseUrl);
      res.setHeader('Cache-Control', 'public, max-age=300');
      res.json(doc);
    },
  });
}
