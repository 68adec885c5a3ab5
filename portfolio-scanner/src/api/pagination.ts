import type { Request } from 'express';
import { z } from 'zod';

// Spec "Pagination": limit (default 250, max 5,000) and offset; meta holds total_count, limit,
// offset and full-URL next/previous, omitted (not null) at the ends.

export const PAGE_LIMIT_DEFAULT = 250;
export const PAGE_LIMIT_MAX = 5_000;
/** A page is found by skipping `offset` index entries, so a deep page costs its depth; deeper
 * than this, filters (or an export) get there cheaper. Covers the largest plan's own list. */
export const PAGE_OFFSET_MAX = 100_000;
const OFFSET_MAX_TEXT = PAGE_OFFSET_MAX.toLocaleString('en-US');

export const pageQuery = {
  limit: z.coerce.number().int().min(1).max(PAGE_LIMIT_MAX).default(PAGE_LIMIT_DEFAULT).meta({ description: `Results per request (default ${PAGE_LIMIT_DEFAULT}, max ${PAGE_LIMIT_MAX}).` }),
  offset: z.coerce
    .number()
    .int()
    .min(0)
    .max(PAGE_OFFSET_MAX, { error: `at most ${OFFSET_MAX_TEXT}; deeper, narrow the list with filters or use an export` })
    .default(0)
    .meta({ description: `Starting position, 0-${OFFSET_MAX_TEXT} (deeper: narrow with filters, or export).` }),
};

export const pageMetaSchema = z
  .object({
    total_count: z.number().int(),
    limit: z.number().int(),
    offset: z.number().int(),
    next: z.string().optional().meta({ description: 'Full URL of the next page; absent on the last page.' }),
    previous: z.string().optional().meta({ description: 'Full URL of the previous page; absent on the first page.' }),
  })
  .meta({ id: 'PageMeta' });

export type PageMeta = z.infer<typeof pageMetaSchema>;

/**
 * The request's path and query under PUBLIC_BASE_URL with new limit/offset. Never the Host header:
 * the client chooses it, and a next link is followed with the reader's key.
 */
function pageUrl(req: Request, publicBaseUrl: string, limit: number, offset: number): string {
  const url = new URL(`${publicBaseUrl.replace(/\/+$/, '')}${req.originalUrl}`);
  url.searchParams.set('limit', String(limit));
  url.searchParams.set('offset', String(offset));
  return url.toString();
}

export function pageMeta(req: Request, publicBaseUrl: string, total: number, limit: number, offset: number): PageMeta {
  const meta: PageMeta = { total_count: total, limit, offset };
  if (offset + limit < total) meta.next = pageUrl(req, publicBaseUrl, limit, offset + limit);
  if (offset > 0) meta.previous = pageUrl(req, publicBaseUrl, limit, Math.max(0, Math.min(offset - limit, Math.max(0, total - limit))));
  return meta;
}
