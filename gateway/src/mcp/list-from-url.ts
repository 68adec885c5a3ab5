import { newId } from '@dv/contracts';
import { ApiError } from '@dv/runtime';
import { GATEWAY_DEFAULTS as D } from '../defaults.ts';
import { jobsCreateRoute, type HeldListSlot, type JobCreatedResponse } from '../routes/jobs-create.ts';
import { fetchList } from '../services/fetch-list.ts';
import { invoke, type ToolEnv } from './invoke.ts';
import { multipartRequest } from './multipart.ts';

// verify_list_from_url's job: the list is downloaded and parsed (up to 50 MB) only once the call
// holds one of the account's few download places (mcpListFetchesPerAccount) and the list job's
// own slot (the plan's concurrent jobs), so a batch of calls cannot start more downloads than
// the account could run jobs. The slot is taken under the job's id and handed to POST /v1/jobs,
// so the job keeps it once it exists; a refused call downloads nothing, and a failed download or
// parse gives both back.

/** A download place outlives the longest download by this much before it stops counting (a replica died holding it). */
const FETCH_PLACE_GRACE_MS = 10_000;

export interface ListFromUrl {
  url: string;
  emailColumn?: string;
  label?: string;
}

export async function createJobFromUrl(env: ToolEnv, args: ListFromUrl): Promise<{ created: JobCreatedResponse; fileName: string }> {
  const { ctx, caller } = env;
  const accountId = caller.account._id;
  const jobId = newId('job');
  await ctx.limits.acquireFetch(accountId, jobId, D.mcpListFetchesPerAccount, D.mcpListDeadlineMs + FETCH_PLACE_GRACE_MS);
  try {
    // The job reaches MongoDB only after the download, so the slot must survive a rebuild until then.
    await ctx.limits.acquireSlot(accountId, caller.account.limits, 'list', jobId, { pendingMs: D.mcpListDeadlineMs });
    try {
      return await download(env, args, jobId);
    } catch (err) {
      // A job that exists keeps its slot until it ends; when the lookup fails too, the slot stays
      // and the next rebuild from MongoDB settles it.
      const exists = await ctx.jobs.get(accountId, jobId).then(
        (job) => job !== null,
        () => true,
      );
      if (!exists) await ctx.limits.releaseSlot(accountId, 'list', jobId);
      throw err;
    }
  } finally {
    await ctx.limits.releaseFetch(accountId, jobId);
  }
}

async function download(env: ToolEnv, args: ListFromUrl, jobId: string): Promise<{ created: JobCreatedResponse; fileName: string }> {
  const { ctx } = env;
  const deadline = AbortSignal.any([env.signal, AbortSignal.timeout(D.mcpListDeadlineMs)]);
  const file = await fetchList(args.url, { maxBytes: D.uploadMaxBytes, timeoutMs: D.mcpListConnectTimeoutMs, allowHttpLoopback: ctx.config.MCP_LIST_URL_ALLOW_HTTP_LOOPBACK, signal: deadline });
  const onDeadline = () => file.body.destroy(new ApiError('timeout', `The list could not be downloaded and read within ${D.mcpListDeadlineMs / 1000} s; host a smaller file or use the REST upload (POST /v1/jobs).`));
  deadline.addEventListener('abort', onDeadline, { once: true });
  const fields: Record<string, string> = {};
  if (args.emailColumn) fields.email_column = args.emailColumn;
  if (args.label) fields.label = args.label;
  const held: HeldListSlot = { heldListSlot: jobId };
  const req = Object.assign(multipartRequest(fields, { name: file.fileName, contentType: file.contentType, body: file.body }), held);
  try {
    const { body } = await invoke<JobCreatedResponse>(env, jobsCreateRoute, { req });
    return { created: body, fileName: file.fileName };
  } finally {
    deadline.removeEventListener('abort', onDeadline);
  }
}
