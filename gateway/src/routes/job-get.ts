import { z } from 'zod';
import { COLLECTIONS, itemId, type JobItemDoc } from '@dv/contracts';
import { ApiError, jsonResponse, problemResponse } from '@dv/runtime';
import { GATEWAY_DEFAULTS as D } from '../defaults.ts';
import { jobIdParams, queryInt, requireJobId } from '../http/common.ts';
import { defineRoute } from '../http/route.ts';
import { fieldsParam, jobStatusSchema, resultSchema } from '../http/schemas.ts';
import { jobView, type JobView } from '../services/views.ts';

// GET /v1/jobs/{job_id}?wait=0-55: status and counts; long-polls until the job ends or the time
// passes. Works on any replica: the waiter listens on verify.done.<job_id> before reading the job.
// A single check's status carries its `result` once done.

export type JobStatusResponse = JobView;

export const jobGetRoute = defineRoute({
  method: 'get',
  path: '/v1/jobs/{job_id}',
  operationId: 'get_job',
  summary: 'Job status (long-poll with wait)',
  tags: ['jobs'],
  params: jobIdParams,
  query: z.object({ wait: queryInt(0, D.maxWaitSeconds, 0), fields: fieldsParam.optional() }),
  responses: {
    '200': jsonResponse('The job status; single checks carry `result` when done.', jobStatusSchema.extend({ result: resultSchema.optional() }).meta({ id: 'JobStatus' })),
    '404': problemResponse('not_found: no such job on this account.'),
  },
  handle: async ({ ctx, input, caller, signal }) => {
    const jobId = requireJobId(input.params.job_id);
    const waiter = input.query.wait > 0 ? ctx.waiter.register(jobId, signal) : null;
    try {
      let job = await ctx.jobs.get(caller.account._id, jobId);
      if (!job) throw new ApiError('not_found', `No job ${jobId} on this account.`);
      if (waiter && job.status === 'running') {
        if (await waiter.wait(input.query.wait * 1000)) job = (await ctx.jobs.get(caller.account._id, jobId)) ?? job;
      }
      const item = job.kind === 'single' ? await ctx.db.collection<JobItemDoc>(COLLECTIONS.jobItems.name).findOne({ _id: itemId(jobId, 0) }) : null;
      const out: JobStatusResponse = jobView(ctx, job, await ctx.load.current(), item, input.query.fields);
      return { status: 200, body: out };
    } finally {
      waiter?.cancel();
    }
  },
});
