import type { Response } from 'express';
import { z } from 'zod';
import { isId } from '@dv/contracts';
import { checkDownloadSignature, downloadScope, type DownloadVariant } from '@dv/notify';
import { ApiError, problemResponse } from '@dv/runtime';
import type { GatewayContext } from '../context.ts';
import { defineRoute } from '../http/route.ts';
import { DOWNLOAD_DECISIONS, DOWNLOAD_STATUSES } from '../services/download-links.ts';
import { streamCsv, streamNdjson } from '../services/export.ts';

// GET /v1/downloads/{job_id}.csv?[decision=|status=]&exp=&sig=: the signed, expiring CSV link (no
// API key), of every row or of one decision or status. A forged, malformed or expired link, or one
// whose filter is not the one it was signed for, is 403 `forbidden`, checked in constant time
// before any lookup. The NDJSON twin is downloads-ndjson.ts.

export const signedDownloadQuery = z.object({
  decision: z.enum(DOWNLOAD_DECISIONS).optional().meta({ description: 'Only rows with this decision (signed into the link).' }),
  status: z.enum(DOWNLOAD_STATUSES).optional().meta({ description: 'Only rows with this status (signed into the link).' }),
  exp: z.string().max(20).default(''),
  sig: z.string().max(128).default(''),
});

type SignedQuery = z.infer<typeof signedDownloadQuery>;

/** Checks the link for its format and filter, then streams the job's rows with the API's exporters. */
export async function serveSignedDownload(ctx: GatewayContext, res: Response, jobId: string, q: SignedQuery, format: 'csv' | 'ndjson'): Promise<void> {
  const variant: DownloadVariant = { format, decision: q.decision, status: q.status };
  const verdict = checkDownloadSignature(jobId, q.exp, q.sig, ctx.downloadSecret, undefined, downloadScope(variant));
  if (verdict === 'expired') throw new ApiError('forbidden', 'This download link has expired; get a fresh one from GET /v1/jobs/{job_id} (download_url).');
  if (verdict !== 'ok' || !isId('job', jobId)) throw new ApiError('forbidden', 'This download link is not valid.');
  const job = await ctx.jobs.getAny(jobId);
  if (!job) throw new ApiError('not_found', 'The job no longer exists (results are kept about 30 days).');
  const filter = { status: q.status, decisions: q.decision ? [q.decision] : undefined };
  const part = [q.decision, q.status].filter(Boolean).join('-');
  if (format === 'ndjson') return streamNdjson(res, ctx.results, job, filter, null);
  await streamCsv(res, ctx.results, job, filter, `${jobId}${part ? `-${part}` : ''}.csv`);
}

export const downloadsRoute = defineRoute({
  method: 'get',
  path: '/v1/downloads/{job_id}.csv',
  operationId: 'download_results_csv',
  summary: 'Signed CSV download (no key)',
  description: 'Links come in the job status (`download_url`), the completion email and the console. sig = hex HMAC-SHA256 over "<job_id>.<exp>", or "<job_id>.<exp>.csv;decision=<d>" / ";status=<s>" for a part.',
  tags: ['jobs'],
  auth: false,
  params: z.object({ job_id: z.string().max(64) }),
  query: signedDownloadQuery,
  responses: {
    '200': { description: 'The results CSV.', content: { 'text/csv': { schema: z.string() } } },
    '403': problemResponse('forbidden: the link is expired, forged or incomplete.'),
    '404': problemResponse('not_found: the job no longer exists.'),
  },
  handle: async ({ ctx, input, res }) => serveSignedDownload(ctx, res, input.params.job_id, input.query, 'csv'),
});
