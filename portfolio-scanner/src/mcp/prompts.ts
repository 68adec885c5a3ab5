import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

// Prompts: ready-made instructions for the usual jobs, written against the tools' names so an
// agent can follow them step by step. Prompt arguments are strings (MCP).

const text = (lines: string[]) => ({ messages: [{ role: 'user' as const, content: { type: 'text' as const, text: lines.join('\n') } }] });

export const MCP_PROMPT_NAMES = ['audit_domain', 'triage_recent_changes', 'compare_spf_dmarc'] as const;

export function registerPrompts(server: McpServer): void {
  server.registerPrompt(
    'audit_domain',
    {
      title: 'Audit one domain',
      description: 'An email-security and registration audit of one monitored domain: MX and gateway, SPF, DMARC, DKIM, name servers, expiry and recent changes, with prioritised fixes.',
      argsSchema: { domain: z.string().max(1_000).describe('A monitored domain name (or its id).') },
    },
    ({ domain }) =>
      text([
        `Audit the domain ${domain} with the portfolio tools.`,
        `1. Call get_domain with domain "${domain}" (if it is not monitored, say so and offer add_domains; do not add it without the user's consent).`,
        `2. Call get_scan_results and get_registration_data for "${domain}", and get_change_history (limit 20) for its recent changes.`,
        '3. Assess: MX and mailbox provider/gateway; SPF (present, ending in -all or ~all, DNS lookups against the limit of 10); DMARC (policy p, pct, rua reporting); DKIM selectors found; name servers; registration expiry (flag under 30 days).',
        '4. Point out what changed recently and whether it looks intended.',
        '5. End with a short list of fixes, most important first, each with the DNS record to publish where one applies.',
      ]),
  );

  server.registerPrompt(
    'triage_recent_changes',
    {
      title: 'Triage recent DNS changes',
      description: 'Reviews the portfolio\'s recent DNS changes and sorts them into expected, needs review and urgent (mail routing or protection weakened).',
      argsSchema: { focus: z.string().max(200).optional().describe('Optional: a domain, gateway or field (e.g. "dmarc") to focus on.') },
    },
    ({ focus }) =>
      text([
        `Triage the recent DNS changes of this domain portfolio${focus ? `, focusing on ${focus}` : ''}.`,
        '1. Call get_dashboard_summary; its recent_changes are the 20 latest changes of the last 7 days, and needs_attention_count says how many domains have weak DMARC or SPF.',
        '2. For each domain with a change, call get_change_history (limit 10) to see the sequence, and get_scan_results when the current state matters.',
        '3. Classify each change: urgent (MX moved to an unknown host, DMARC weakened or removed, SPF removed or over 10 lookups, name servers changed unexpectedly), needs review, or expected (e.g. a gateway migration that completed).',
        '4. Report a table: domain, field, old → new, when, class, and a one-line reason; urgent ones first with the action to take.',
      ]),
  );

  server.registerPrompt(
    'compare_spf_dmarc',
    {
      title: 'Compare SPF and DMARC across domains',
      description: 'Compares SPF and DMARC of several domains (or the whole portfolio) and lists which fall short of a p=reject / valid-SPF baseline.',
      argsSchema: { domains: z.string().max(10_000).optional().describe('Domain names separated by commas or spaces; empty for the whole portfolio.') },
    },
    ({ domains }) => {
      const names = (domains ?? '').split(/[\s,]+/).filter(Boolean);
      return text([
        'Compare SPF and DMARC across these domains.',
        names.length > 0
          ? `1. For each of ${names.join(', ')}, call get_scan_results.`
          : '1. Call get_dashboard_summary for the distributions, then list_domains (filter dmarc_status "none", then "missing", then "quarantine") to find the domains short of p=reject, and get_scan_results for a sample of each group.',
        '2. For each domain note: SPF record (present, qualifier of "all", total DNS lookups vs the limit of 10), DMARC policy p, sp, pct and whether rua reporting is set.',
        '3. Produce a table sorted from weakest to strongest, then the common gaps and the records to publish to reach p=reject with a valid SPF everywhere.',
      ]);
    },
  );
}
