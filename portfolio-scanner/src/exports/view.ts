import { z } from 'zod';
import { EXPORT_STATUSES, EXPORT_TYPES, type ExportDoc } from '@dv/contracts';
import { signExportLink } from './signing.ts';

// Export job → the spec's Export job resource, plus `progress`, `error` and `expires_at`.

const dt = z.iso.datetime();

export const exportJobSchema = z
  .object({
    id: z.number().int(),
    export_type: z.enum(EXPORT_TYPES),
    status: z.enum(EXPORT_STATUSES),
    task_id: z.string(),
    file_url: z.string().nullable().meta({ description: 'Signed link to the file (no key needed), when completed; valid until the `expires` it carries (an hour, or the file\'s expiry if sooner). Each read of the list gives a fresh one.' }),
    row_count: z.number().int().meta({ description: 'Rows in the file once completed (pdf: rows of its domain table; zip: rows of domains.csv; diff: changed fields); 0 before.' }),
    file_size: z.number().int().meta({ description: 'Bytes of the file once completed; 0 before.' }),
    parameters: z.object({ scope: z.enum(['account', 'global']).optional(), folder_id: z.union([z.number().int(), z.literal('none')]).nullable(), columns: z.array(z.string()), filters: z.record(z.string(), z.string()), from: dt.optional(), to: dt.optional() }).meta({ description: 'The request with its defaults filled in.' }),
    created_at: dt,
    completed_at: dt.nullable(),
    progress: z.number().int().min(0).max(100).meta({ description: 'Percent of the matched domains read; 100 once completed.' }),
    error: z.string().nullable().meta({ description: 'Why the export failed (status failed).' }),
    expires_at: dt.nullable().meta({ description: 'When the file and this record are deleted (completed and failed exports).' }),
  })
  .meta({ id: 'ExportJob' });

export interface LinkOptions {
  /** PUBLIC_BASE_URL (links are absolute; never the request's Host header, which the client chooses). */
  baseUrl: string;
  /** The number of the caller's API key (`id` in GET /api/v1/keys/): the link works while it does. */
  keyNo: number;
  secret: string;
  linkTtlS: number;
  now?: Date;
}

export function exportView(d: ExportDoc, link: LinkOptions) {
  const nowS = Math.floor((link.now ?? new Date()).getTime() / 1000);
  let fileUrl: string | null = null;
  if (d.status === 'completed' && d.expires_at) {
    const exp = Math.min(nowS + link.linkTtlS, Math.floor(d.expires_at.getTime() / 1000));
    if (exp > nowS) fileUrl = new URL(signExportLink(d._id, link.keyNo, exp, link.secret), link.baseUrl).toString();
  }
  const progress = d.status === 'completed' ? 100 : d.status === 'processing' && d.rows_expected ? Math.min(99, Math.floor((d.rows_done / d.rows_expected) * 100)) : 0;
  return {
    id: d.id,
    export_type: d.export_type,
    status: d.status,
    task_id: d._id,
    file_url: fileUrl,
    row_count: d.row_count,
    file_size: d.file_size,
    parameters: d.parameters,
    created_at: d.created_at.toISOString(),
    completed_at: d.completed_at?.toISOString() ?? null,
    progress,
    error: d.error,
    expires_at: d.expires_at?.toISOString() ?? null,
  };
}
