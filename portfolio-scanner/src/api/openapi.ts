import { createDocument, type ZodOpenApiResponsesObject } from 'zod-openapi';
import { z } from 'zod';
import { routePaths, type HttpRoute } from '@dv/runtime';
import type { ApiCaller, ApiContext } from './context.ts';
import { errorResponse, PORTFOLIO_ERROR_STATUS } from './errors.ts';

// The OpenAPI 3.1 document, generated from the route definitions whose zod schemas validate requests.

const limitHeaders = z.object({
  'X-RateLimit-Limit': z.string().meta({ description: 'Requests per minute of the plan (per API key).' }),
  'X-RateLimit-Remaining': z.string().meta({ description: 'Requests left in the current minute window.' }),
  'X-RateLimit-Reset': z.string().meta({ description: 'Unix time (s) when the window resets.' }),
  'X-API-Quota-Limit': z.string().meta({ description: 'Calls per UTC day of the plan (per account).' }),
  'X-API-Quota-Used': z.string().meta({ description: 'Calls used today.' }),
});
const retryHeaders = limitHeaders.extend({ 'Retry-After': z.string().meta({ description: 'Seconds to wait.' }) });

const codes = Object.entries(PORTFOLIO_ERROR_STATUS)
  .map(([c, s]) => `\`${c}\` (${s})`)
  .join(', ');

export function buildOpenApiDocument(routes: readonly HttpRoute<ApiContext, ApiCaller>[], publicBaseUrl?: string): ReturnType<typeof createDocument> {
  return createDocument({
    openapi: '3.1.0',
    // Where this service is reached (PUBLIC_BASE_URL), so clients generated from the document call it.
    ...(publicBaseUrl ? { servers: [{ url: publicBaseUrl.replace(/\/+$/, '') }] } : {}),
    info: {
      title: 'Domain portfolio intelligence API',
      version: '1.0.0',
      description:
        'Monitored domains, scan results, DNS change history, registration data and a dashboard summary. Every response is the envelope `{status, data, meta, errors}`. ' +
        `Error codes (closed list): ${codes}. Limits per plan: Enterprise 100/min and 10,000 calls/day, Enterprise Max 500/min and 50,000/day, Enterprise Max Premium 2,000/min and 200,000/day (with the global domain view); ` +
        'per minute per API key, per UTC day per account (calls, not rows); the X-RateLimit-* and X-API-Quota-* headers are on every authenticated response. Plans without API access get 403 `api_access_not_included`. ' +
        'HTTPS only: plain HTTP from another machine gets 403 `https_required` on every path, before the key is checked (behind a TLS-terminating proxy the scheme is read from X-Forwarded-Proto, believed only from the proxies in TRUSTED_PROXIES); ' +
        'HTTPS answers carry Strict-Transport-Security. Plain HTTP is served only to clients on the same machine (loopback, no forwarding headers), for local use. ' +
        'MCP connector (not described here as operations): `POST /mcp`, Model Context Protocol over Streamable HTTP (stateless), with a portfolio key or an OAuth 2.1 access token of scope `mcp` ' +
        '(discovery at /.well-known/oauth-protected-resource/mcp and /.well-known/oauth-authorization-server; dynamic client registration at /oauth/register; the user approves by pasting a portfolio key on /oauth/authorize). ' +
        'Its tools read the same domains, scans, registration data, changes and summary, add domains and queue CSV exports (nothing destructive), for the caller\'s account only; each JSON-RPC request counts as one call against the same limits.',
    },
    tags: [
      { name: 'domains', description: 'Monitored domains and their data.' },
      { name: 'dashboard', description: 'Portfolio-wide figures.' },
      { name: 'exports', description: 'Background exports (csv, pdf, zip, diff) and their signed file links.' },
      { name: 'keys', description: 'API keys (at most 3 active).' },
      { name: 'meta', description: 'Root and this document.' },
    ],
    components: { securitySchemes: { bearerKey: { type: 'http', scheme: 'bearer', description: 'A portfolio API key, svc_live_…' } } },
    paths: routePaths(routes, {
      security: [{ bearerKey: [] }],
      commonResponses: (r): ZodOpenApiResponsesObject =>
        r.auth === false
          ? {}
          : {
              '401': errorResponse('authentication_required (no key) or invalid_api_key (wrong, revoked, expired, or another service\'s key).'),
              '403': errorResponse('api_access_not_included (the plan has no API access), account_inactive, or https_required (plain HTTP).'),
              '429': errorResponse('rate_limit_exceeded: per-minute limit of the key or daily quota of the account used up.', retryHeaders),
              '500': errorResponse('internal_error.'),
            },
    }),
  });
}
