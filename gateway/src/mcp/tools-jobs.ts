import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { GATEWAY_DEFAULTS as D } from '../defaults.ts';
import { jobCancelRoute } from '../routes/job-cancel.ts';
import { jobGetRoute } from '../routes/job-get.ts';
import { jobResultsRoute } from '../routes/job-results.ts';
import { jobsListRoute } from '../routes/jobs-list.ts';
import type { ResultObject } from '../services/results.ts';
import type { JobView } from '../services/views.ts';
import { invoke, type ToolEnv } from './invoke.ts';
import { guarded, ok } from './reply.ts';
import { jobLine, POLL_HINT, resultLine } from './summaries.ts';

// Job tools: get_job (long-polls up to 20 s), get_job_results (pages of at most 200),
// list_jobs, cancel_job. Each runs the REST route's handler for the same account.

const jobId = z.string().max(64).describe('The job id returned by verify_email, verify_emails or verify_list_from_url (begins with "job_").');

export interface ResultsPage {
  job_id: string;
  results: ResultObject[];
  next_cursor: string | null;
}

/** get_job with an optional wait, the shared path of get_job and the verify tools. */
export async function fetchJob(env: ToolEnv, id: string, waitSeconds: number): Promise<JobView> {
  const { body } = await invoke<JobView>(env, jobGetRoute, { params: { job_id: id }, query: { wait: String(Math.min(waitSeconds, D.mcpWaitSeconds)) } });
  return body;
}

export async function fetchResults(env: ToolEnv, id: string, q: { limit: number; cursor?: string; status?: string; decision?: string }): Promise<ResultsPage> {
  const query: Record<string, string> = { format: 'json', limit: String(q.limit) };
  if (q.cursor) query.cursor = q.cursor;
  if (q.status) query.status = q.status;
  if (q.decision) query.decision = q.decision;
  return (await invoke<ResultsPage>(env, jobResultsRoute, { params: { job_id: id }, query })).body;
}

// eslint-disable-next-line max-lines-per-function -- one registration per tool, read as a table
export function registerJobTools(server: McpServer, env: ToolEnv): void {
  const { ctx } = env;
  server.registerTool(
    'get_job',
    {
      title: 'Job status',
      description:
        'Status and progress of a verification job: running/completed/failed/canceled, done/total, counts per status, credits charged and refunded, ETA. ' +
        'Set wait (0-20 s) to wait for completion before answering; poll again while status is running. For a single check (verify_email) the result is included once done. Free.',
      inputSchema: { job_id: jobId, wait: z.number().int().min(0).max(D.mcpWaitSeconds).optional().describe('Seconds to wait for the job to finish (0-20, default 0).') },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ job_id, wait }) =>
      guarded(ctx, async () => {
        const job = await fetchJob(env, job_id, wait ?? 0);
        const extra = job.result ? `\n${resultLine(job.result)}` : job.status === 'running' ? `\n${POLL_HINT}` : job.status === 'completed' ? '\nRead the rows with get_job_results.' : '';
        return ok(`${jobLine(job)}${extra}`, job);
      }),
  );

  server.registerTool(
    'get_job_results',
    {
      title: 'Job results (one page)',
      description:
        `One page of a job's results (at most ${D.mcpResultsMax} per call), in list order: each with status, sub_status, score, safe_to_send, decision {action send/review/drop, why} and flags. ` +
        'Filter with status and/or decision (e.g. decision "send" for the addresses safe to mail). Pass next_cursor back as cursor for the next page; null means the last page. Works while the job still runs (finished rows only). Free.',
      inputSchema: {
        job_id: jobId,
        limit: z.number().int().min(1).max(D.mcpResultsMax).optional().describe(`Rows per page, 1-${D.mcpResultsMax} (default 100).`),
        cursor: z.string().max(200).optional().describe('next_cursor from the previous page, unchanged.'),
        status: z.enum(['deliverable', 'undeliverable', 'risky', 'unknown']).optional().describe('Only results with this status.'),
        decision: z.enum(['send', 'review', 'drop']).optional().describe('Only results with this decision action.'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ job_id, limit, cursor, status, decision }) =>
      guarded(ctx, async () => {
        const page = await fetchResults(env, job_id, { limit: limit ?? 100, cursor, status, decision });
        const lines = page.results.map(resultLine);
        const more = page.next_cursor ? `\nMore rows: call again with cursor "${page.next_cursor}".` : '\nThis is the last page.';
        return ok(`${page.results.length} result(s) of ${job_id}:\n${lines.join('\n')}${more}`, page);
      }),
  );

  server.registerTool(
    'list_jobs',
    {
      title: 'List jobs',
      description: "The account's verification jobs, newest first, with status and progress. Filter by status; page with limit (1-100, default 20) and cursor (next_cursor of the previous page). Free.",
      inputSchema: {
        status: z.enum(['running', 'completed', 'failed', 'canceled']).optional().describe('Only jobs in this state.'),
        limit: z.number().int().min(1).max(100).optional().describe('Jobs per page, 1-100 (default 20).'),
        cursor: z.string().max(200).optional().describe('next_cursor from the previous page, unchanged.'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ status, limit, cursor }) =>
      guarded(ctx, async () => {
        const query: Record<string, string> = {};
        if (status) query.status = status;
        if (limit !== undefined) query.limit = String(limit);
        if (cursor) query.cursor = cursor;
        const { body } = await invoke<{ jobs: JobView[]; next_cursor: string | null }>(env, jobsListRoute, { query });
        const text = body.jobs.length === 0 ? 'No jobs.' : body.jobs.map(jobLine).join('\n');
        return ok(`${text}${body.next_cursor ? `\nMore: call again with cursor "${body.next_cursor}".` : ''}`, body);
      }),
  );

  server.registerTool(
    'cancel_job',
    {
      title: 'Cancel a job',
      description:
        'Stops a running job. Addresses not yet checked are not verified and their credits are refunded (credits_refunded); finished results stay readable. Fails with conflict if the job already completed or failed. ' +
        'Only cancel when the user asks to.',
      inputSchema: { job_id: jobId },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    ({ job_id }) =>
      guarded(ctx, async () => {
        const { body } = await invoke<JobView>(env, jobCancelRoute, { params: { job_id } });
        return ok(`Canceled. ${jobLine(body)}`, body);
      }),
  );
}
