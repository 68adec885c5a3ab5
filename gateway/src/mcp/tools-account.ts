import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { accountRoute } from '../routes/account.ts';
import { lookupRoute } from '../routes/lookup.ts';
import { statusRoute } from '../routes/status.ts';
import type { ResultObject } from '../services/results.ts';
import { invoke, type ToolEnv } from './invoke.ts';
import { guarded, ok } from './reply.ts';
import { resultLine } from './summaries.ts';

// Read-only, free tools: lookup_email (the latest stored result), get_account (plan, credits,
// limits; the webhook secret is left out of what an agent sees), get_service_status (load).

export function registerAccountTools(server: McpServer, env: ToolEnv): void {
  const { ctx } = env;
  server.registerTool(
    'lookup_email',
    {
      title: 'Latest stored result for an address',
      description:
        'Returns the most recent verification result this account already has for an address (from any earlier check or job), with the job_id it came from. Free and instant; checks nothing new. ' +
        'Use it before verify_email to avoid paying twice; a not_found error means the address was never checked on this account with a key of this mode (live and sandbox results are kept apart).',
      inputSchema: { email: z.string().min(1).max(320).describe('The address, e.g. "jane.doe@example.com".') },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ email }) =>
      guarded(ctx, async () => {
        const { body } = await invoke<{ result: ResultObject; job_id: string }>(env, lookupRoute, { query: { email } });
        return ok(`${resultLine(body.result)} (checked at ${String(body.result.checked_at)}, job ${body.job_id})`, body);
      }),
  );

  server.registerTool(
    'get_account',
    {
      title: 'Account, plan, credits and limits',
      description:
        'The account behind the API key: plan, credit balance (1 credit per unique live address), per-job and daily limits with today’s usage, and the key in use (live or sandbox). Check it before a large job. Free.',
      inputSchema: {},
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    () =>
      guarded(ctx, async () => {
        const { body } = await invoke<Record<string, unknown> & { plan: string; credits: { balance: number }; limits: Record<string, unknown>; key: { mode: string; prefix: string } }>(env, accountRoute, {});
        const { webhook_secret: _secret, ...shown } = body;
        const l = body.limits;
        const text = `Plan ${body.plan}; ${body.credits.balance} credits; key ${body.key.prefix} (${body.key.mode}${body.key.mode === 'sandbox' ? ': fake results, no credits used' : ''}); ${String(l.emails_used_today)}/${String(l.emails_per_day)} addresses used today; up to ${String(l.emails_per_job)} per job.`;
        return ok(text, shown);
      }),
  );

  server.registerTool(
    'get_service_status',
    {
      title: 'Service load and expected speed',
      description: 'Current load (and advice), queue depth, seconds per single check and per 1000 addresses. Use it to tell the user how long a list will take. Free.',
      inputSchema: {},
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    () =>
      guarded(ctx, async () => {
        const { body } = await invoke<{ load: string; advice: string; seconds_per_single: number | null; seconds_per_1000: number | null; queue: { depth: number } }>(env, statusRoute, {});
        const speed = body.seconds_per_single != null && body.seconds_per_1000 != null ? ` About ${body.seconds_per_single} s per single check, ${body.seconds_per_1000} s per 1000 addresses;` : ' No time estimate;';
        return ok(`Load ${body.load}: ${body.advice}${speed} ${body.queue.depth} queued.`, body);
      }),
  );
}
