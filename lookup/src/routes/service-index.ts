import { z } from 'zod';
import { TOOLS } from '../tools.ts';
import { jsonResponse } from '@dv/runtime';
import { defineRoute } from './route.ts';

// GET /: the JSON service index (a client that prefers text/html gets the home page instead) of the spec: the seven lookup paths (plus validate), the limits
// path, the MCP address, the OpenAPI address, documentation and pricing. Absolute URLs from
// PUBLIC_BASE_URL, never from the Host header.

export const serviceIndexSchema = z
  .object({
    service: z.string(),
    description: z.string(),
    lookups: z.array(z.object({ tool: z.string(), method: z.string(), path: z.string(), url: z.string(), description: z.string() })),
    validate: z.object({ post: z.string(), get: z.string() }),
    limits: z.string(),
    mcp: z.object({ url: z.string(), transport: z.string(), protocol_version: z.string() }),
    openapi: z.string(),
    free_key: z.string(),
    documentation: z.string(),
    pricing: z.string(),
  })
  .meta({ id: 'ServiceIndex' });

export type ServiceIndexResponse = z.infer<typeof serviceIndexSchema>;

export const MCP_PROTOCOL_VERSION = '2025-11-25';

export const serviceIndexRoute = defineRoute({
  method: 'get',
  path: '/',
  operationId: 'service_index',
  summary: 'Service index',
  tags: ['meta'],
  auth: false,
  responses: { '200': jsonResponse('Where everything is.', serviceIndexSchema) },
  handle: ({ ctx, res }) => {
    const base = ctx.config.PUBLIC_BASE_URL;
    const body: ServiceIndexResponse = {
      service: 'Free single-domain lookup API (DNS, email security, WHOIS, SPF, DMARC, DKIM, blacklists)',
      description: `One domain or IP per request. Anonymous: ${ctx.config.ANONYMOUS_LOOKUPS_PER_DAY} lookups/day per IP; free key: ${ctx.config.FREE_KEY_LOOKUPS_PER_DAY}/day. Cached answers are free.`,
      lookups: TOOLS.filter((t) => t.target !== 'record').map((t) => ({
        tool: t.name,
        method: 'GET',
        path: `/v1/${t.slug}/{target}`,
        url: `${base}/v1/${t.slug}/{target}`,
        description: t.title,
      })),
      validate: { post: `${base}/v1/validate`, get: `${base}/v1/validate?record={record}` },
      limits: `${base}/v1/meta/limits`,
      mcp: { url: `${base}/mcp`, transport: 'streamable-http (stateless)', protocol_version: MCP_PROTOCOL_VERSION },
      openapi: `${base}/openapi.json`,
      free_key: `${base}/v1/keys/request`,
      documentation: ctx.config.DOCS_URL,
      pricing: ctx.config.PRICING_URL,
    };
    res.setHeader('Cache-Control', 'public, max-age=300');
    // A browser (Accept: text/html first) gets the home page at this address (web/pages/home.ts).
    res.vary('Accept');
    res.json(body);
  },
});
