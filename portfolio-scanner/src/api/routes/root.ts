import type { Request } from 'express';
import { z } from 'zod';
import { ok, okSchema } from '../envelope.ts';
import { defineRoute } from '../route.ts';

/** Full URL of an API path on the host the client called (scheme and host as express sees them). */
export function apiUrl(req: Request, path: string): string {
  return new URL(path, `${req.protocol}://${req.get('host') ?? 'localhost'}`).toString();
}

export const RESOURCE_PATHS = {
  domains: '/api/v1/domains/',
  dashboard_summary: '/api/v1/dashboard/summary/',
  exports: '/api/v1/exports/',
  keys: '/api/v1/keys/',
  openapi: '/api/v1/openapi.json',
} as const;

export const root = defineRoute({
  method: 'get',
  path: '/api/v1/',
  operationId: 'apiRoot',
  summary: 'API root: links to every resource',
  description: '`data.links` maps each resource to its full URL (paths under a domain take its id: `domains/{id}/`, `scan-results/`, `changes/`, `whois/`); `data.plan` is the caller\'s plan and limits.',
  tags: ['meta'],
  responses: {
    '200': {
      description: 'Links.',
      content: {
        'application/json': {
          schema: okSchema(
            'ApiRoot',
            z.object({
              version: z.literal('v1'),
              links: z.record(z.string(), z.string()),
              plan: z.object({ name: z.string(), requests_per_minute: z.number().int(), calls_per_day: z.number().int(), global_domain_view: z.boolean() }),
            }),
          ),
        },
      },
    },
  },
  handle: ({ req, caller }) => {
    const links = Object.fromEntries(Object.entries(RESOURCE_PATHS).map(([k, p]) => [k, apiUrl(req, p)]));
    links.domain = apiUrl(req, '/api/v1/domains/{id}/');
    links.domain_scan_results = apiUrl(req, '/api/v1/domains/{id}/scan-results/');
    links.domain_changes = apiUrl(req, '/api/v1/domains/{id}/changes/');
    links.domain_whois = apiUrl(req, '/api/v1/domains/{id}/whois/');
    const p = caller.plan;
    return ok({ version: 'v1', links, plan: { name: p.label, requests_per_minute: p.requestsPerMinute, calls_per_day: p.callsPerDay, global_domain_view: p.globalDomainView } });
  },
});
