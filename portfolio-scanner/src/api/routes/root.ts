import { z } from 'zod';
import type { ApiContext } from '../context.ts';
import { ok, okSchema } from '../envelope.ts';
import { planUsage } from '../plan-usage.ts';
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

const used = z.object({ used: z.number().int(), limit: z.number().int() }).meta({ id: 'Usage' });

export const root = defineRoute({
  method: 'get',
  path: '/api/v1/',
  operationId: 'api_root',
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
  handle: async ({ ctx, caller }) => {
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
    return ok({ version: 'v1', links: rootLinks(ctx), plan, usage: await planUsage(ctx.db, caller.account._id, p) });
  },
});
