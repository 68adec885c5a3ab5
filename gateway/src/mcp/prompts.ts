import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { GATEWAY_DEFAULTS as D } from '../defaults.ts';

// Prompts: ready-made instructions for the usual job, cleaning a prospect list before a campaign.

export function registerPrompts(server: McpServer): void {
  server.registerPrompt(
    'clean_prospect_list',
    {
      title: 'Clean a prospect list',
      description: 'Verify a prospect list (a CSV/TXT URL or pasted addresses) and split it into send / review / drop.',
      argsSchema: {
        list: z.string().max(100_000).describe('An https:// URL of a CSV/TXT file, or addresses separated by commas, spaces or new lines.'),
        label: z.string().max(200).optional().describe('A name for the job.'),
      },
    },
    ({ list, label }) => {
      const isUrl = /^https:\/\//i.test(list.trim());
      const how = isUrl
        ? `Call verify_list_from_url with url "${list.trim()}"${label ? ` and label "${label}"` : ''}.`
        : `Split these addresses and call verify_emails${label ? ` with label "${label}"` : ''} (at most ${D.mcpInlineMax} per call; several calls for more):\n${list}`;
      const text = [
        'Clean this prospect list with the email verification tools.',
        '1. Call get_account to check the plan, credits (1 per unique live address) and the per-job limit; tell the user the expected cost first if the list is large.',
        `2. ${how}`,
        `3. If the answer has a job_id and status running, call get_job with wait ${D.mcpWaitSeconds} until status is completed (tell the user the progress).`,
        `4. Read every row with get_job_results (limit ${D.mcpResultsMax}, follow next_cursor), or filter by decision: "send", "review", "drop".`,
        '5. Report counts per decision, list the addresses to drop with their reason, point out did_you_mean typo suggestions, and give the send list. Treat unknown results as review (retry later).',
      ].join('\n');
      return { messages: [{ role: 'user', content: { type: 'text', text } }] };
    },
  );
}
