import { createDocument, type ZodOpenApiResponsesObject } from 'zod-openapi';
import { problemResponse, routePaths } from '@dv/runtime';
import { AUTH_ERRORS, retryAfterHeader } from './http/problems.ts';
import type { RouteDef } from './http/route.ts';
import { webhooksDoc } from './http/webhook-doc.ts';
import { API_VERSION } from './routes/health.ts';

// The OpenAPI 3.1 document, generated from the same route definitions (and zod schemas) that
// validate requests; built once per process.

export function buildOpenApiDocument(routes: readonly RouteDef[], baseUrl: string): ReturnType<typeof createDocument> {
  return createDocument({
    openapi: '3.1.0',
    info: {
      title: 'Email verification API',
      version: API_VERSION,
      description:
        'Verify single addresses and lists; read results, events and account figures. Bearer API keys (dv_live_… or dv_test_… for the free sandbox). ' +
        'Errors are RFC 9457 problem details (application/problem+json) with a machine-readable `code`; 422 validation errors carry `detail` as an array of {loc, msg, type, input, ctx}. ' +
        'Send an Idempotency-Key on writes: a replay returns the original response and never charges twice (kept 24 h).',
    },
    servers: [{ url: baseUrl }],
    tags: [
      { name: 'verify', description: 'Single checks and stored results.' },
      { name: 'jobs', description: 'Batch jobs and their results.' },
      { name: 'events', description: 'job.completed pull feed.' },
      { name: 'account', description: 'Account, limits and service status.' },
      { name: 'meta', description: 'Health and this document.' },
    ],
    components: { securitySchemes: { bearerKey: { type: 'http', scheme: 'bearer', description: 'API key: dv_live_<prefix>_<secret> or dv_test_<prefix>_<secret>.' } } },
    security: [{ bearerKey: [] }],
    paths: routePaths(routes, { security: [{ bearerKey: [] }], commonResponses }),
    webhooks: webhooksDoc,
  });
}

/** What every route can answer besides its own responses: auth and limits, bad or non-JSON bodies, a backing service down. */
function commonResponses(r: RouteDef): ZodOpenApiResponsesObject {
  return {
    ...(r.auth !== false ? AUTH_ERRORS : {}),
    ...(r.method === 'post' ? { '400': problemResponse('invalid_request: the body is not valid JSON.'), '415': problemResponse('unsupported_media_type.') } : {}),
    '503': problemResponse('service_unavailable (or 504 timeout): a backing service is down or slow; retry with backoff.', retryAfterHeader),
  };
}
