import type { Request } from 'express';
import { z } from 'zod';
import { ok, okSchema } from '../envelope.ts';
import { planUsage } from '../plan-usage.ts';
import { defineRoute } from '../route.ts';

/** Full URL of an API path on the host the client called (scheme and host as express sees them). */
export function apiUrl(req: Request, path: string): string {
  return new URL(path, `${req.protocol}://${req.get('host') ?? 'localhost'}`).toString();
}

const TEMPLATE_PATHS = {
  domain: '/api/v1/domains/{id}/',
  domain_scan_results: '/api/v1/domains/{id}/scan-results/',
  domain_changes: '/api/v1/domains/{id}/changes/',
  domain_whois: '/api/v1/domains/{id}/whois/',
} as const;

// The links depend only on the scheme and Host the client called: built once per pair (nine URL
// parses were most of this route's own work), a few pairs at most in practice; the Host header is
// the client's to choose, so the memory is bounded.
const LINKS_MAX_BASES = 64;
const linksByBase = new Map<string, Readonly<Record<string, string>>>();

function rootLinks(req: Request): Readonly<Record<string, string>> {
  const base = `${req.protocol}://${req.get('host') ?? 'localhost'}`;
  let links = linksByBase.get(base);
  if (!links) {
    links = Object.freeze(Object.fromEntries(Object.entries({ ...RESOURCE_PATHS, ...TEMPLATE_PATHS }).map(([k, p]) => [k, apiUrl(req, p)])));
    if (linksByBase.size >= LINKS_MAX_BASES) linksByBase.clear();
    linksByBase.set(base, links);
  }
  return links;
}

export const RESOURCE_PATHS = {
  domains: '/api/v1/domains/',
  dashboard_summary: '/api/v1/dashboard/summary/',
  exports: '/api/v1/exports/',
  keys: '/api/v1/keys/',
  openapi: '/api/v1/openapi.json',
} as const;

const used = z.object({ used: z.number().int(), limit: z.number().int() }).meta({ id: 'Usage' });

export const root = defineRoute({
  method: 'get',
  path: '/api/v1/',
  operationId: 'apiRoot',
  summary: 'API root: links to every resource',
  description:
    '`data.links` maps each resource to its full URL (paths under a domain take its id: `domains/{id}/`, `scan-results/`, `changes/`, `whois/`); `data.plan` is the caller\'s plan and limits; ' +
    '`data.usage` what the account holds against each stored-data limit (`used` of `limit`).',
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
              plan: z.object({
                name: z.string(),
                requests_per_minute: z.number().int(),
                calls_per_day: z.number().int(),
                global_domain_view: z.boolean(),
                max_domains: z.number().int().meta({ description: 'Domains the account lists at most (active and inactive).' }),
                max_pending_exports: z.number().int().meta({ description: 'Exports queued or in progress at once.' }),
                max_stored_exports: z.number().int().meta({ description: 'Exports kept (any status) until they expire.' }),
                max_export_storage_bytes: z.number().int().meta({ description: 'Bytes of the account\'s export files together.' }),
                max_export_rows: z.number().int().meta({ description: 'Rows (domains) of one csv, zip or diff export.' }),
              }),
              usage: z
                .object({ domains: used, exports_pending: used, exports_stored: used, export_storage_bytes: used })
                .meta({ id: 'PlanUsage', description: 'What the account holds now against each stored-data limit of its plan.' }),
            }),
          ),
        },
      },
    },
  },
  handle: async ({ ctx, req, caller }) => {
    const p = caller.plan;
    const plan = {
      name: p.label,
      requests_per_minute: p.requestsPerMinute,
      calls_per_day: p.callsPerDay,
      global_domain_view: p.globalDomainView,
      max_domains: p.maxDomains,
      max_pending_exports: p.maxPendingExports,
      max_stored_exports: p.maxStoredExports,
      max_export_storage_bytes: p.maxExportStorageBytes,
      max_export_rows: p.maxExportRows,
    };
    return ok({ version: 'v1', links: rootLinks(req), plan, usage: await planUsage(ctx.db, caller.account._id, p) });
  },
});
