import { z } from 'zod';
import { ApiError, problemResponse } from '@dv/runtime';
import { decodeCursor, encodeCursor, jobIdParams, queryInt, requireJobId } from '../http/common.ts';
import { defineRoute } from '../http/route.ts';
import { fieldsParam, resultSchema } from '../http/schemas.ts';
import { streamCsv, streamNdjson } from '../services/export.ts';
import { resultOfItem, trimFields, type ResultObject } from '../services/results.ts';

// GET /v1/jobs/{job_id}/results: finished items in submission order. json pages with
// next_cursor; ndjson streams every matching row; csv returns every matching row at once.

const decisionList = z
  .string()
  .max(100)
  .transform((v, ctx) => {
    const list = v.split(',').map((s) => s.trim()).filter(Boolean);
    const bad = list.filter((d) => !['send', 'review', 'drop'].includes(d));
    if (bad.length > 0) {
      ctx.addIssue({ code: 'custom', message: `unknown decision(s): ${bad.join(', ')}; use send, review, drop` });
      return z.NEVER;
    }
    return list;
  })
  .meta({ description: 'Comma list of send, review, drop.', example: 'send' });

const query = z.object({
  format: z.enum(['json', 'ndjson', 'csv']).default('json'),
  status: z.enum(['deliverable', 'undeliverable', 'risky', 'unknown']).optional(),
  cursor: z.string().max(200).optional(),
  limit: queryInt(1, 1000, 100),
  fields: fieldsParam.optional(),
  decision: decisionList.optional(),
});

export interface JobResultsResponse {
  job_id: string;
  results: ResultObject[];
  next_cursor: string | null;
}

const isSeqCursor = (v: unknown): v is { s: number } => typeof v === 'object' && v !== null && Number.isSafeInteger((v as { s?: unknown }).s) && (v as { s: number }).s >= 0;

export const jobResultsRoute = defineRoute({
  method: 'get',
  path: '/v1/jobs/{job_id}/results',
  operationId: 'get_job_results',
  summary: 'Job results (json, ndjson or csv)',
  tags: ['jobs'],
  params: jobIdParams,
  query,
  responses: {
    '200': {
      description: 'json: a page with next_cursor (null on the last page). ndjson: one result per line, streamed. csv: every row with decision and decision_why, then the meta columns.',
      content: {
        'application/json': { schema: z.object({ job_id: z.string(), results: z.array(resultSchema), next_cursor: z.string().nullable() }).meta({ id: 'ResultsPage' }) },
        'application/x-ndjson': { schema: z.string() },
        'text/csv': { schema: z.string() },
      },
    },
    '404': problemResponse('not_found.'),
  },
  handle: async ({ ctx, input, caller, res }) => {
    const jobId = requireJobId(input.params.job_id);
    const q = input.query;
    const job = await ctx.jobs.get(caller.account._id, jobId);
    if (!job) throw new ApiError('not_found', `No job ${jobId} on this account.`);
    const filter = { status: q.status, decisions: q.decision };
    if (q.format === 'ndjson') return streamNdjson(res, ctx.results, job, filter, q.fields ?? null);
    if (q.format === 'csv') return streamCsv(res, ctx.results, job, filter, `${jobId}.csv`);
    const after = q.cursor ? decodeCursor(q.cursor, isSeqCursor).s : undefined;
    const page = await ctx.results.page(jobId, filter, q.limit, after);
    const out: JobResultsResponse = {
      job_id: jobId,
      results: page.items.map((i) => trimFields(resultOfItem(i), q.fields)),
      next_cursor: page.nextSeq === null ? null : encodeCursor({ s: page.nextSeq }),
    };
    return { status: 200, body: out };
  },
});

