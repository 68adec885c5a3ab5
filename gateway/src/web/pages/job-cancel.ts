import { consoleCaller } from '../caller.ts';
import { count, plural } from '../format.ts';
import { jobName, ownJob } from '../jobs.ts';
import { definePage } from '../page.ts';

// POST /app/lists/<job id>/cancel: the API's cancel (ctx.jobs.cancel, as DELETE /v1/jobs/{id}
// does), as the console's caller for the viewer; members run lists, so members cancel them too.
// A finished list is refused by the service (409, said in words on the error page); canceling a
// canceled list again changes nothing and says so.

export const jobCancel = definePage({
  method: 'post',
  path: '/lists/:jobId/cancel',
  access: 'run_lists',
  handle: async ({ cc, req, viewer }) => {
    const before = await ownJob(cc, viewer.account._id, req.params.jobId);
    const job = await cc.api.jobs.cancel(consoleCaller(viewer), before._id);
    const to = `/app/lists/${job._id}`;
    if (before.status === 'canceled') return { redirect: to, flash: { kind: 'info', text: `${jobName(job)} was already canceled; nothing changed.` } };
    if (job.status !== 'canceled') return { redirect: to, flash: { kind: 'info', text: `${jobName(job)} ${job.status} before it could be canceled; nothing was refunded.` } };
    const stopped = job.total - job.done;
    const refund = job.mode === 'live' ? `${plural(job.credits_refunded, 'credit')} refunded` : 'a sandbox list: nothing was charged, nothing refunded';
    return { redirect: to, flash: { kind: 'ok', text: `${jobName(job)} was canceled: ${plural(stopped, 'address', 'addresses')} not checked, ${refund}. Credits now: ${count(viewer.account.credits + job.credits_refunded - before.credits_refunded)}.` } };
  },
});
