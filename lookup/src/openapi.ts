import { createDocument } from 'zod-openapi';
import { routePaths } from '@dv/runtime';
import type { LookupConfig } from './config.ts';
import type { RouteDef } from './routes/route.ts';

// The OpenAPI 3.1 document, generated from the same route definitions (and zod schemas) that
// validate requests. Built once per process: routes and config do not change while it runs.

export function buildOpenApiDocument(routes: readonly RouteDef[], config: LookupConfig): ReturnType<typeof createDocument> {
  return createDocument({
    openapi: '3.1.0',
    info: {
      title: 'Domain lookup API',
      version: '1.0.0',
      description:
        'Free single-domain DNS, email-security, WHOIS, SPF, DMARC, DKIM and blacklist lookups. One domain or IP per request. ' +
        `Anonymous: ${config.ANONYMOUS_LOOKUPS_PER_DAY} live lookups per UTC day per client IP; free key: ${config.FREE_KEY_LOOKUPS_PER_DAY}. Cached answers are free. ` +
        'Errors are RFC 9457 problem details (application/problem+json) with a machine-readable `code`.',
    },
    servers: [{ url: config.PUBLIC_BASE_URL }],
    externalDocs: { url: config.DOCS_URL, description: 'Documentation' },
    tags: [
      { name: 'lookups', description: 'One lookup per request.' },
      { name: 'meta', description: 'Service index and limits (free).' },
      { name: 'keys', description: 'Free API keys by email verification.' },
      { name: 'mcp', description: 'The MCP server.' },
    ],
    components: {
      securitySchemes: { freeKey: { type: 'http', scheme: 'bearer', description: 'A free key, dk_free_…; optional (without it the anonymous allowance applies).' } },
    },
    // Every credential here is optional (`auth: 'optional'`: none, or a free key); public routes say none.
    paths: routePaths(routes, { security: [{ freeKey: [] }] }),
  });
}
