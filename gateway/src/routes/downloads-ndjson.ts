import { z } from 'zod';
import { problemResponse } from '@dv/runtime';
import { defineRoute } from '../http/route.ts';
import { serveSignedDownload, signedDownloadQuery } from './downloads.ts';

// GET /v1/downloads/{job_id}.ndjson?[decision=|status=]&exp=&sig=: the signed link's NDJSON form
// (one result per line, as GET /v1/jobs/{job_id}/results?format=ndjson gives); the signature
// covers the format, so a CSV link's signature does not open it.

export const downloadsNdjsonRoute = defineRoute({
  method: 'get',
  path: '/v1/downloads/{job_id}.ndjson',
  operationId: 'download_results_ndjson',
  summary: 'Signed NDJSON download (no key)',
  description: 'Links come from the console. sig = hex HMAC-SHA256 over "<job_id>.<exp>.ndjson", with ";decision=<d>" or ";status=<s>" for a part.',
  tags: ['jobs'],
  auth: false,
  params: z.object({ job_id: z.string().max(64) }),
  query: signedDownloadQuery,
  responses: {
    '200': { description: 'One result per line.', content: { 'application/x-ndjson': { schema: z.string() } } },
    '403': problemResponse('forbidden: the link is expired, forged or incomplete.'),
    '404': problemResponse('not_found: the job no longer exists.'),
  },
  handle: async ({ ctx, input, res }) => serveSignedDownload(ctx, res, input.params.job_id, input.query, 'ndjson'),
});
