import { ok, okSchema } from '../envelope.ts';
import { defineRoute } from '../route.ts';
import { summarySchema } from '../schemas.ts';
import { cachedDashboardSummary } from '../summary.ts';

export const getSummary = defineRoute({
  method: 'get',
  path: '/api/v1/dashboard/summary/',
  operationId: 'get_dashboard_summary',
  summary: 'Portfolio-wide summary',
  description:
    'Over the domains the list shows (active and inactive). Percentages are of `total_domains` (two decimals). Domains without a detected gateway are counted under `gateway_name: "none"`; ' +
    'a domain not scanned yet counts as DMARC `missing` and SPF `missing`. `spf_status.over_limit`: more than 10 DNS lookups. `recent_changes`: the last 20 changes detected in the last 7 days (of each domain, only since the account added it). ' +
    '`needs_attention_count`: scanned domains whose DMARC is missing or `p=none`, or whose SPF is missing or over the 10-lookup limit. ' +
    'Served from a snapshot: adding, changing or removing domains shows at once; new scan results within 30 s.',
  tags: ['dashboard'],
  responses: { '200': { description: 'The summary.', content: { 'application/json': { schema: okSchema('DashboardSummaryResponse', summarySchema) } } } },
  handle: async ({ ctx, caller }) => ok(await cachedDashboardSummary(ctx.db, ctx.redis, caller.account._id)),
});
