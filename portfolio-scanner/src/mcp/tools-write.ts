import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { addDomainsRoute, MAX_DOMAINS_PER_ADD } from '../api/routes/domains-add.ts';
import { DOMAIN_COLUMN_NAMES, exportLimits, queueExport } from '../exports/index.ts';
import { exportFiltersSchema } from '../exports/params.ts';
import { guarded, ok, type ToolEnv } from './reply.ts';

// The two safe writes: adding domains (the REST route's own handler: the same name rules, per-name
// results and priority scans) and queueing a CSV export (the exports module's queueExport, as
// POST /api/v1/exports/). Nothing here deletes or changes what the account already has.

type AddResult = { input: string; domain: string | null; id: number | null; result: 'added' | 'already_monitored' | 'invalid'; reason?: string };

export function registerWriteTools(server: McpServer, env: ToolEnv): void {
  const { ctx, caller } = env;

  server.registerTool(
    'add_domains',
    {
      title: 'Add domains to monitoring',
      description:
        `Adds 1-${MAX_DOMAINS_PER_ADD} domain names to the account's monitoring (as POST /api/v1/domains/). Host names only (IDN accepted, stored as punycode); IP addresses, URLs and bad labels are refused one by one with a reason while the rest are added. ` +
        'New names get a priority scan (results within minutes). Adding a name already monitored changes nothing. Ask the user before adding names they did not give you.',
      inputSchema: { domains: z.array(z.string().max(1_000)).min(1).max(MAX_DOMAINS_PER_ADD).describe('Domain names, e.g. ["example.com", "example.org"].') },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    ({ domains }) =>
      guarded(env, async () => {
        const args = { ctx, caller, input: { params: {}, query: {}, body: { domains }, headers: {} }, req: env.req, res: undefined, signal: new AbortController().signal };
        const reply = await addDomainsRoute.handle(args as unknown as Parameters<typeof addDomainsRoute.handle>[0]);
        const body = (reply as { body: { data: AddResult[]; meta: { added: number; already_monitored: number; invalid: number } } }).body;
        const m = body.meta;
        const refused = body.data.filter((r) => r.result === 'invalid').map((r) => `${r.input}: ${r.reason}`);
        const text = [`${m.added} added, ${m.already_monitored} already monitored, ${m.invalid} refused.`, ...refused].join('\n');
        return ok(text, { results: body.data, ...m });
      }),
  );

  server.registerTool(
    'queue_csv_export',
    {
      title: 'Queue a CSV export of the domains',
      description:
        'Queues a background CSV export of the account\'s domains (as POST /api/v1/exports/ with export_type csv) and answers at once with its task_id. The file is written by an export worker; ' +
        'the user downloads it from GET /api/v1/exports/ (its signed, expiring file_url) with an API key. The plan limits exports queued or in progress at once, exports kept and rows an export (GET /api/v1/ shows them with the usage).',
      inputSchema: {
        columns: z.array(z.string().min(1).max(64)).min(1).max(DOMAIN_COLUMN_NAMES.length).optional().describe(`Columns in order, from: ${DOMAIN_COLUMN_NAMES.join(', ')}. Default: the domain list's fields.`),
        filters: exportFiltersSchema.optional().describe('Only domains matching: gateway (as email_gateway), dmarc_policy (reject, quarantine, none, missing), status, search.'),
        folder_id: z.union([z.literal('none'), z.number().int().min(1)]).optional().describe('Only this folder\'s domains, or "none" for domains in no folder.'),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    ({ columns, filters, folder_id }) =>
      guarded(env, async () => {
        const q = await queueExport({ db: ctx.db, limits: exportLimits(caller.plan) }, caller.account, { export_type: 'csv', columns, filters, folder_id });
        return ok(`CSV export queued: task ${q.task_id} (export ${q.id}). It appears in GET /api/v1/exports/ with its file_url once completed.`, { task_id: q.task_id, status: q.status, export_id: q.id });
      }),
  );
}
