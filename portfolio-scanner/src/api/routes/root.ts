import { z } from 'zod';
import type { ApiContext } from '../context.ts';
import { ok, okSchema } from '../envelope.ts';
import { defineRoute } from '../route.ts';

/**
 * Full URL of an API path under PUBLIC_BASE_URL. Never from the request's Host header: the client
 * chooses that, and a link built from it (a shared next page, an export's file_url) would send the
 * next reader, with their key, wherever the client wanted.
 */
export function apiUrl(ctx: Pick<ApiContext, 'publicBaseUrl'>, path: string): string {
  return `${ctx.publicBaseUrl.replace(/\/+$/, '')}${path}`;
}

const TEMPLATE_PATHS = {
  domain: '/api/v1/domains/{id}/',
  domain_scan_results: '/api/v1/domains/{id}/scan-results/',
  domain_changes: '/api/v1/domains/{id}/changes/',
  domain_whois: '/api/v1/domains/{id}/whois/',
} as const;

// The links depend only on PUBLIC_BASE_URL: built once (nine URL joins were most of this route's own work).
let linksFor: { base: string; links: Readonly<Record<string, string>> } | undefined;

function rootLinks(ctx: Pick<ApiContext, 'publicBaseUrl'>): Readonly<Record<string, string>> {
  if (linksFor?.base !== ctx.publicBaseUrl) {
    const links = Object.freeze(Object.fromEntries(Object.entries({ ...RESOURCE_PATHS, ...TEMPLATE_PATHS }).map(([k, p]) => [k, apiUrl(ctx, p)])));
    linksFor = { base: ctx.publicBaseUrl, links };
  }
  return linksFor.links;
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
  handle: ({ ctx, caller }) => {
    const p = caller.plan;
    return ok({ version: 'v1', links: rootLinks(ctx), plan: { name: p.label, requests_per_minute: p.requestsPerMinute, calls_per_day: p.callsPerDay, global_domain_view: p.globalDomainView } });
  },
});
