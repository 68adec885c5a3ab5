import type { Filter } from 'mongodb';
import { z } from 'zod';
import { CHANGE_RETENTION_DAYS, EXPORT_TYPES, type AccountDomainDoc, type CorpusDomainDoc, type ExportParameters, type ExportType } from '@dv/contracts';
import { accountFilter, corpusFilter, domainFilterQuery } from '../api/domain-query.ts';
import { DOMAIN_STATUSES } from '../api/schemas.ts';
import { DEFAULT_DOMAIN_COLUMNS, DEFAULT_PDF_COLUMNS, DIFF_COLUMN_NAMES, DOMAIN_COLUMN_NAMES, PDF_MAX_COLUMNS } from './columns.ts';

// The export request (spec: `{folder_id, columns, filters: {gateway, dmarc_policy, status,
// search}}`, every field optional) plus `export_type` and, for `diff`, the window `from`/`to`.
// Filters take the domain list's values and mean the same (domain-query.ts).

const DAY_MS = 86_400_000;
const datetime = z.iso.datetime({ offset: true });

export const exportFiltersSchema = z
  .strictObject({
    gateway: domainFilterQuery.email_gateway,
    dmarc_policy: domainFilterQuery.dmarc_status,
    status: z.enum(DOMAIN_STATUSES).optional().meta({ description: 'Only domains in this status; without it, active and inactive ones (as the list).' }),
    search: domainFilterQuery.search,
  })
  .meta({ id: 'ExportFilters', description: 'The domain list\'s filters: `gateway` as `email_gateway`, `dmarc_policy` as `dmarc_status`, `search` alike.' });

export const exportRequestSchema = z
  .strictObject({
    export_type: z.enum(EXPORT_TYPES).default('csv').meta({ description: '`csv` (default), `pdf` (report), `zip` (domains.csv, domains.json, summary.json, manifest.json) or `diff` (changes between `from` and `to`, CSV; scope account: of each domain, only those detected since the account added it).' }),
    scope: z
      .enum(['account', 'global'])
      .default('account')
      .meta({ description: '`global`: the whole active corpus, as the domain list shows it on plans with the global domain view (Enterprise Max Premium); csv and diff only, no `folder_id` or `status`. Default `account`.' }),
    folder_id: z
      .union([z.literal('none'), z.number().int().min(1).max(Number.MAX_SAFE_INTEGER)])
      .nullable()
      .optional()
      .meta({ description: 'Only this folder\'s domains, `none` for domains in no folder; null or absent: all.' }),
    columns: z
      .array(z.string().min(1).max(64))
      .min(1)
      .max(DOMAIN_COLUMN_NAMES.length)
      .nullable()
      .optional()
      .meta({ description: `Columns in order. csv/zip/pdf: ${DOMAIN_COLUMN_NAMES.map((c) => `\`${c}\``).join(', ')} (default: the list item's fields; pdf at most ${PDF_MAX_COLUMNS}, default ${DEFAULT_PDF_COLUMNS.join(', ')}). diff: ${DIFF_COLUMN_NAMES.join(', ')} (default all).` }),
    filters: exportFiltersSchema.nullable().optional(),
    from: datetime.optional().meta({ description: `diff only (required): start of the window, ISO 8601; at most ${CHANGE_RETENTION_DAYS} days ago (change retention).` }),
    to: datetime.optional().meta({ description: 'diff only: end of the window (exclusive), default now.' }),
  })
  .superRefine((b, ctx) => {
    const allowed: readonly string[] = b.export_type === 'diff' ? DIFF_COLUMN_NAMES : DOMAIN_COLUMN_NAMES;
    const seen = new Set<string>();
    (b.columns ?? []).forEach((c, i) => {
      if (!allowed.includes(c)) ctx.addIssue({ code: 'custom', path: ['columns', i], message: `unknown column "${c}" for ${b.export_type}` });
      else if (seen.has(c)) ctx.addIssue({ code: 'custom', path: ['columns', i], message: `column "${c}" twice` });
      seen.add(c);
    });
    if (b.scope === 'global') {
      if (b.export_type === 'pdf' || b.export_type === 'zip') ctx.addIssue({ code: 'custom', path: ['scope'], message: 'scope global is for csv and diff exports' });
      if (b.folder_id !== undefined && b.folder_id !== null) ctx.addIssue({ code: 'custom', path: ['folder_id'], message: 'folders hold your own domains; use scope account' });
      if (b.filters?.status !== undefined) ctx.addIssue({ code: 'custom', path: ['filters', 'status'], message: 'status is a property of your own domains; use scope account' });
    }
    if (b.export_type === 'pdf' && (b.columns?.length ?? 0) > PDF_MAX_COLUMNS) ctx.addIssue({ code: 'custom', path: ['columns'], message: `a pdf table has at most ${PDF_MAX_COLUMNS} columns` });
    if (b.export_type !== 'diff') {
      if (b.from !== undefined || b.to !== undefined) ctx.addIssue({ code: 'custom', path: [b.from !== undefined ? 'from' : 'to'], message: 'from/to are for export_type diff only' });
      return;
    }
    if (b.from === undefined) {
      ctx.addIssue({ code: 'custom', path: ['from'], message: 'diff needs from (ISO 8601 datetime)' });
      return;
    }
    const from = Date.parse(b.from);
    const to = b.to === undefined ? Date.now() : Date.parse(b.to);
    if (!(from < to)) ctx.addIssue({ code: 'custom', path: ['to'], message: 'to must be after from' });
    if (from < Date.now() - CHANGE_RETENTION_DAYS * DAY_MS) ctx.addIssue({ code: 'custom', path: ['from'], message: `changes are kept ${CHANGE_RETENTION_DAYS} days; from is older` });
  })
  .meta({ id: 'CreateExportRequest' });

export type ExportRequest = z.output<typeof exportRequestSchema>;

/** The request with defaults filled in, as stored in the job and shown as `parameters`. */
export function normalizeParameters(r: ExportRequest, now = new Date()): { type: ExportType; parameters: ExportParameters } {
  const type = r.export_type;
  const columns = r.columns ?? (type === 'diff' ? [...DIFF_COLUMN_NAMES] : type === 'pdf' ? DEFAULT_PDF_COLUMNS : DEFAULT_DOMAIN_COLUMNS);
  const filters = Object.fromEntries(Object.entries(r.filters ?? {}).filter(([, v]) => v !== undefined));
  const parameters: ExportParameters = { ...(r.scope === 'global' ? { scope: 'global' as const } : {}), folder_id: r.folder_id ?? null, columns: [...columns], filters };
  if (type === 'diff') {
    parameters.from = new Date(r.from!).toISOString();
    parameters.to = (r.to ? new Date(r.to) : now).toISOString();
  }
  return { type, parameters };
}

/** The account documents an export reads: the list's filter (domain-query.ts) and `status`. */
export function exportDomainFilter(accountId: string, p: ExportParameters): Filter<AccountDomainDoc> {
  const f = p.filters;
  const q = accountFilter(accountId, { search: f.search, email_gateway: f.gateway, dmarc_status: f.dmarc_policy, folder_id: p.folder_id ?? undefined });
  if (f.status) q.status = f.status;
  return q;
}

/** scope global: the active corpus with the list's filters (domain-query.ts corpusFilter). */
export function exportCorpusFilter(p: ExportParameters): Filter<CorpusDomainDoc> {
  return corpusFilter({ search: p.filters.search, email_gateway: p.filters.gateway, dmarc_status: p.filters.dmarc_policy });
}
