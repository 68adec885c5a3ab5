import { jobIdParams, requireJobId } from '../http/common.ts';
import { jsonResponse, problemResponse } from '@dv/runtime';
import { defineRoute } from '../http/route.ts';
import { idempotencyHeader, jobStatusSchema } from '../http/schemas.ts';
import { fingerprint } from '../services/idempotency.ts';
import { jobView, type JobView } from '../services/views.ts';

// DELETE /v1/jobs/{job_id}: cancel. Unprocessed items turn canceled and are refunded once
// (ledger id refund:<job>:cancel). Canceling a canceled job answers its status again (200);
// a completed or failed job is a 409 conflict.

export type JobCancelResponse = JobView;

export const jobCancelRoute = defineRoute({
  method: 'delete',
  path: '/v1/jobs/{job_id}',
  operationId: 'cancel_job',
  summary: 'Cancel a job',
  tags: ['jobs'],
  headers: idempotencyHeader,
  params: jobIdParams,
  responses: {
    '200': jsonResponse('The job, now canceled; credits_refunded shows the refund.', jobStatusSchema),
    '404': problemResponse('not_found.'),
    '409': problemResponse('conflict: the job already completed or failed.'),
  },
  handle: async ({ ctx, input, caller, signal }) => {
    const jobId = requireJobId(input.params.job_id);
    return ctx.idempotency.run(
      caller,
      input.headers['Idempotency-Key'],
      fingerprint('DELETE', `/v1/jobs/${jobId}`, null),
      async () => {
        const job = await ctx.jobs.cancel(caller, jobId);
        const out: JobCancelResponse = jobView(ctx, job, await ctx.load.current());
        return { status: 200, body: out };
      },
      signal,
    );
  },
});
