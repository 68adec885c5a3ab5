import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { LoadReason } from '@dv/contracts';
import { GATEWAY_DEFAULTS as D } from '../defaults.ts';
import type { JobCreatedResponse } from '../routes/jobs-create.ts';
import { jobsCreateRoute } from '../routes/jobs-create.ts';
import { verifyRoute } from '../routes/verify.ts';
import type { ResultObject } from '../services/results.ts';
import { invoke, jsonRequest, type ToolEnv } from './invoke.ts';
import { createJobFromUrl } from './list-from-url.ts';
import { guarded, ok, toolError } from './reply.ts';
import { fetchJob, fetchResults } from './tools-jobs.ts';
import { jobLine, POLL_HINT, REASON_TEXT, resultLine } from './summaries.ts';

// The writing tools: verify_email (one address, waits up to 20 s), verify_emails (an inline list
// of at most 100) and verify_list_from_url (a public https CSV/TXT, parsed like an upload). They run
// the handlers of POST /v1/verify and POST /v1/jobs: same credits, limits and intake. MCP calls
// carry no Idempotency-Key, so a retried call creates (and charges) a second job.

const COST = 'Costs 1 credit per unique address checked with a live key (stored results via max_age_days, syntax-invalid addresses and sandbox keys are free).';
const label = z.string().max(200).optional().describe('A name for the job, shown in list_jobs (e.g. "webinar leads").');

/** After creating a list job: wait up to 20 s, and when it finished include the first page of results. */
async function settle(env: ToolEnv, created: JobCreatedResponse, note: string, started: number) {
  const left = Math.max(0, Math.floor(D.mcpWaitSeconds - (Date.now() - started) / 1000));
  const job = await fetchJob(env, created.job_id, left);
  const intake = `${created.accepted} unique address(es) accepted, ${created.duplicates_removed} duplicate(s) removed, ${created.invalid_total} invalid.`;
  const structured: Record<string, unknown> = { ...created, ...job, accepted: created.accepted, duplicates_removed: created.duplicates_removed, invalid: created.invalid, invalid_total: created.invalid_total };
  if (job.status !== 'completed') return ok(`${note}${intake}\n${jobLine(job)}\n${POLL_HINT}`, structured);
  const page = await fetchResults(env, job.job_id, { limit: D.mcpInlineMax });
  structured.results = page.results;
  structured.next_cursor = page.next_cursor;
  const more = page.next_cursor ? `\nMore rows: get_job_results with cursor "${page.next_cursor}".` : '';
  return ok(`${note}${intake}\n${jobLine(job)}\n${page.results.map(resultLine).join('\n')}${more}`, structured);
}

export function registerVerifyTools(server: McpServer, env: ToolEnv): void {
  const { ctx } = env;
  server.registerTool(
    'verify_email',
    {
      title: 'Verify one email address',
      description:
        'Checks whether one email address can receive mail (syntax, DNS/MX, SMTP mailbox check without sending, catch-all, disposable, role, typo). Returns status (deliverable/undeliverable/risky/unknown), score 0-100, safe_to_send and a decision (send/review/drop). ' +
        `Waits up to ${D.mcpWaitSeconds} s; slower checks return a job_id to poll with get_job. ${COST} Use lookup_email first if the address may have been checked already.`,
      inputSchema: {
        email: z.string().max(320).describe('The address to check, e.g. "jane.doe@example.com".'),
        max_age_days: z.number().int().min(0).max(365).optional().describe('Serve a stored result no older than this many days instead of checking again (free when it exists).'),
        force_fresh: z.boolean().optional().describe('Always run a fresh check, ignoring stored results.'),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    ({ email, max_age_days, force_fresh }) =>
      guarded(ctx, async () => {
        const body: Record<string, unknown> = { email, wait: D.mcpWaitSeconds };
        if (max_age_days !== undefined) body.max_age_days = max_age_days;
        if (force_fresh !== undefined) body.force_fresh = force_fresh;
        const reply = await invoke<{ result?: ResultObject; job_id?: string; estimated_seconds?: number | null; queue?: { reason?: LoadReason | null } }>(env, verifyRoute, { body });
        if (reply.status === 200 && reply.body.result) return ok(resultLine(reply.body.result), reply.body);
        const reason = reply.body.queue?.reason;
        const eta = reply.body.estimated_seconds != null ? ` Expected in about ${reply.body.estimated_seconds} s.` : reason ? ` No time estimate: ${REASON_TEXT[reason]}.` : '';
        return ok(`The check of ${email} is still running (job ${reply.body.job_id}).${eta} ${POLL_HINT}`, reply.body);
      }),
  );

  server.registerTool(
    'verify_emails',
    {
      title: 'Verify a short list of addresses',
      description:
        `Verifies up to ${D.mcpInlineMax} addresses as one job (duplicates, case-insensitive, are removed; invalid syntax is reported, not charged). Waits up to ${D.mcpWaitSeconds} s: when the job finishes in time the results come back at once, otherwise a job_id to poll with get_job then read with get_job_results. ` +
        `${COST} For more than ${D.mcpInlineMax} addresses use verify_list_from_url (or the REST upload).`,
      inputSchema: {
        emails: z.array(z.string().max(320)).min(1).max(10_000).describe(`1-${D.mcpInlineMax} email addresses.`),
        label,
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    ({ emails, label: l }) =>
      guarded(ctx, async () => {
        const started = Date.now();
        if (emails.length > D.mcpInlineMax) {
          return toolError('job_too_large', `${emails.length} addresses sent; an MCP call takes at most ${D.mcpInlineMax}. Split the list, or put it in a CSV/TXT file at an https URL and use verify_list_from_url.`);
        }
        const body = { emails, ...(l ? { label: l } : {}) };
        const { body: created } = await invoke<JobCreatedResponse>(env, jobsCreateRoute, { req: jsonRequest(body) });
        return settle(env, created, '', started);
      }),
  );

  server.registerTool(
    'verify_list_from_url',
    {
      title: 'Verify a list from a CSV/TXT URL',
      description:
        'Downloads a CSV (header row; "," ";" or tab) or TXT (one address per line) file from a public https:// URL (max 50 MB, no redirects, no private or internal addresses) and verifies every unique address as one job; other CSV columns are kept as meta on each result. ' +
        `Returns the job (job_id) at once, with results if it finishes within ${D.mcpWaitSeconds} s; otherwise poll get_job and read get_job_results. ${COST} The plan's per-job limit applies.`,
      inputSchema: {
        url: z.string().max(2_000).describe('https:// URL of the CSV or TXT file (for example a published sheet export or a file share link that serves the file itself).'),
        email_column: z.string().max(200).optional().describe('CSV column holding the address; default: a column named "email".'),
        label,
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    ({ url, email_column, label: l }) =>
      guarded(ctx, async () => {
        const started = Date.now();
        const { created, fileName } = await createJobFromUrl(env, { url, ...(email_column ? { emailColumn: email_column } : {}), ...(l ? { label: l } : {}) });
        return settle(env, created, `Read ${fileName}. `, started);
      }),
  );
}
