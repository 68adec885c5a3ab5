import { z } from 'zod';
import { isId } from '@dv/contracts';
import { decodeCursor, encodeCursor, queryInt } from '../http/common.ts';
import { jsonResponse } from '@dv/runtime';
import { defineRoute } from '../http/route.ts';
import { jobStatusSchema } from '../http/schemas.ts';
import { jobView, type JobView } from '../services/views.ts';

// GET /v1/jobs: the account's jobs, newest first, `limit` 1-100 (default 20), opaque cursor.

const query = z.object({
  status: z.enum(['running', 'completed', 'failed', 'canceled']).optional(),
  limit: queryInt(1, 100, 20),
  cursor: z.string().max(200).optional().meta({ description: 'next_cursor of the previous page.' }),
});

export interface JobListResponse {
  jobs: JobView[];
  next_cursor: string | null;
}

const isJobCursor = (v: unknown): v is { b: string } => typeof v === 'object' && v !== null && typeof (v as { b?: unknown }).b === 'string' && isId('job', (v as { b: string }).b);

export const jobsListRoute = defineRoute({
  method: 'get',
  path: '/v1/jobs',
  operationId: 'list_jobs',
  summary: 'List jobs',
  tags: ['jobs'],
  query,
  responses: {
    '200': jsonResponse('A page of jobs, newest first; next_cursor is null on the last page.', z.object({ jobs: z.array(jobStatusSchema), next_cursor: z.string().nullable() }).meta({ id: 'JobList' })),
  },
  handle: async ({ ctx, input, caller }) => {
    const q = input.query;
    const before = q.cursor ? decodeCursor(q.cursor, isJobCursor).b : undefined;
    const page = await ctx.jobs.list(caller.account._id, q.status, q.limit, before);
    const load = await ctx.load.current();
    const out: JobListResponse = { jobs: page.jobs.map((j) => jobView(ctx, j, load)), next_cursor: page.next ? encodeCursor({ b: page.next }) : null };
    return { status: 200, body: out };
  },
});
