import { defineRoute } from '../route.ts';
import { buildOpenApiDocument } from '../openapi.ts';
import { portfolioRoutes } from './index.ts';

let doc: unknown;

export const openApiRoute = defineRoute({
  method: 'get',
  path: '/api/v1/openapi.json',
  operationId: 'getOpenApi',
  summary: 'This OpenAPI 3.1 document (no key needed)',
  tags: ['meta'],
  auth: false,
  responses: { '200': { description: 'The OpenAPI document (not in the envelope).', content: { 'application/json': {} } } },
  handle: ({ res }) => {
    // Routes do not change while the process runs: built once.
    doc ??= buildOpenApiDocument(portfolioRoutes());
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.json(doc);
  },
});
