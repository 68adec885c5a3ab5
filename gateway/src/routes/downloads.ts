import { z } from 'zod';
import { isId } from '@dv/contracts';
import { checkDownloadSignature } from '@dv/notify';
import { ApiError, problemResponse } from '@dv/runtime';
import { defineRoute } from '../http/route.ts';
import { streamCsv } from '../services/export.ts';

// GET /v1/downloads/{job_id}.csv?exp=&sig=: the signed, expiring CSV link (no API key). A forged,
// malformed or expired link is 403 `forbidden`, checked in constant time before any lookup.

export const downloadsRoute = defineRoute({
  method: 'get',
  path: '/v1/downloads/{job_id}.csv',
  operationId: 'download_results_csv',
  summary: 'Signed CSV download (no key)',
  description: 'Links come in the job status (`download_url`) and the completion email. sig = hex HMAC-SHA256 over "<job_id>.<exp>".',
  tags: ['jobs'],
  auth: false,
  params: z.object({ job_id: z.string().max(64) }),
  query: z.object({ exp: z.string().max(20).default(''), sig: z.string().max(128).default('') }),
  responses: {
    '200': { description: 'The results CSV.', content: { 'text/csv': { schema: z.string() } } },
    '403': problemResponse('forbidden: the link is expired, forged or incomplete.'),
    '404': problemResponse('not_found: the job no longer exists.'),
  },
  handle: async ({ ctx, input, res }) => {
    const jobId = input.params.job_id;
    const verdict = checkDownloadSignature(jobId, input.query.exp, input.query.sig, ctx.downloadSecret);
    if (verdict === 'expired') throw new ApiError('forbidden', 'This download link has expired; get a fresh one from GET /v1/jobs/{job_id} (download_url).');
    if (verdict !== 'ok' || !isId('job', jobId)) throw new ApiError('forbidden', 'This download link is not valid.');
    const job = await ctx.jobs.getAny(jobId);
    if (!job) throw new ApiError('not_found', 'The job no longer exists (results are kept about 30 days).');
    await streamCsv(res, ctx.results, job, {}, `${jobId}.csv`);
  },
});
