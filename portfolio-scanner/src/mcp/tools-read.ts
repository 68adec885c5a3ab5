import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { AccountDomainDoc } from '@dv/contracts';
import { accountFilter, domainFilterQuery } from '../api/domain-query.ts';
import { PAGE_OFFSET_MAX } from '../api/pagination.ts';
import { cachedDashboardSummary } from '../api/summary.ts';
import { accountChanges, accountScanResult, domainDetail, domainItem, domains, whois, whoisView } from '../api/views.ts';
import { PORTFOLIO_DEFAULTS as D } from '../defaults.ts';
import { findAccountDomain } from './domains.ts';
import { guarded, ok, type ToolEnv } from './reply.ts';

// Read tools: the REST API's queries and views (api/domain-query.ts, views.ts, summary.ts) over
// the caller's account only. Structured content is what the REST route returns as `data`.

const READ = { readOnlyHint: true, openWorldHint: false } as const;
const offsetArg = z.number().int().min(0).max(PAGE_OFFSET_MAX).default(0).describe(`Starting position, at most ${PAGE_OFFSET_MAX} (deeper: narrow with filters).`);
const domainArg = z.string().min(1).max(1_000).describe('A domain this account monitors, by name (e.g. "example.com"; IDN accepted) or by its numeric id.');

type Item = ReturnType<typeof domainItem>;
const itemLine = (d: Item) => `${d.domain} (id ${d.id}): gateway ${d.email_gateway ?? 'none'}, DMARC ${d.dmarc_policy_p ?? 'missing'}, SPF ${d.spf ? 'present' : 'missing'}, scanned ${d.scanned_at ?? 'not yet'}`;

// eslint-disable-next-line max-lines-per-function -- one registration per tool, read as a table
export function registerReadTools(server: McpServer, env: ToolEnv): void {
  const { ctx, caller } = env;
  const accountId = caller.account._id;

  /** A read tool about one of the account's domains: its `domain` (a name or an id) is looked up within the account first. */
  function domainTool<S extends z.ZodRawShape>(name: string, meta: { title: string; description: string }, input: S, run: (d: AccountDomainDoc, args: z.infer<z.ZodObject<S>>) => Promise<CallToolResult>): void {
    // Widened to the SDK's plain shape: its callback types do not resolve over a generic shape.
    const inputSchema: z.ZodRawShape = { domain: domainArg, ...input };
    server.registerTool(name, { ...meta, inputSchema, annotations: READ }, (args) =>
      guarded(env, async () => run(await findAccountDomain(ctx.db, accountId, args.domain as string), args as z.infer<z.ZodObject<S>>)),
    );
  }

  server.registerTool(
    'list_domains',
    {
      title: 'List monitored domains',
      description: `The account's monitored domains (active and inactive; removed ones are left out) by id, with gateway, DMARC policy and SPF, filtered like GET /api/v1/domains/. At most ${D.mcpListMax} per call; page with offset (next_offset is absent on the last page).`,
      inputSchema: {
        ...domainFilterQuery,
        limit: z.number().int().min(1).max(D.mcpListMax).default(100).describe(`Domains per call (1-${D.mcpListMax}, default 100).`),
        offset: offsetArg,
      },
      annotations: READ,
    },
    ({ limit, offset, ...filters }) =>
      guarded(env, async () => {
        const q = accountFilter(accountId, filters);
        const [docs, total] = await Promise.all([domains(ctx.db).find(q).sort({ id: 1 }).skip(offset).limit(limit).toArray(), domains(ctx.db).countDocuments(q)]);
        const items = docs.map(domainItem);
        const next = offset + items.length < total ? { next_offset: offset + items.length } : {};
        const head = `${total} domain${total === 1 ? '' : 's'} match; ${items.length} from offset ${offset}${'next_offset' in next ? ` (more from offset ${next.next_offset})` : ''}.`;
        return ok([head, ...items.map(itemLine)].join('\n'), { domains: items, total_count: total, limit, offset, ...next });
      }),
  );

  domainTool(
    'get_domain',
    {
      title: 'Inspect a domain',
      description: 'One monitored domain in full: its user fields (folder, tags, notes, status), the latest scan result, the 20 latest changes and the registration (WHOIS/RDAP) record, as GET /api/v1/domains/{id}/.',
    },
    {},
    async (doc) => {
      const d = await domainDetail(ctx.db, doc, caller.plan.globalDomainView);
      const text = `${itemLine(d)}; status ${d.status}; ${d.scan_count} scans; ${d.change_history.length} recent changes; registrar ${d.whois?.registrar ?? 'unknown'}, expires ${d.whois?.expiry_date ?? 'unknown'}.`;
      return ok(text, d);
    },
  );

  domainTool(
    'get_scan_results',
    {
      title: 'Latest scan result of a domain',
      description: 'The latest DNS and email-security scan of a monitored domain (MX, mailbox provider and gateway, SPF with its lookup count, DMARC, DKIM selectors, NS, A, technologies, hosting), as GET /api/v1/domains/{id}/scan-results/. `scan_result` is null until the first scan.',
    },
    {},
    async (d) => {
      const result = await accountScanResult(ctx.db, d, caller.plan.globalDomainView);
      const text = result ? `${d.domain} scanned ${String(result.scanned_at)}: ${Object.entries(result).filter(([k, v]) => v !== null && k !== 'scanned_at' && typeof v !== 'object').slice(0, 12).map(([k, v]) => `${k}=${String(v)}`).join(', ')}` : `${d.domain} has not been scanned yet.`;
      return ok(text, { domain: d.domain, scan_result: result });
    },
  );

  domainTool(
    'get_registration_data',
    {
      title: 'Registration (WHOIS/RDAP) data of a domain',
      description: 'Registrar, name servers, registration, expiry and update dates of a monitored domain, as GET /api/v1/domains/{id}/whois/. Until the data is fetched `whois.whois_status` is `pending` and `lookup_status` / `lookup_detail` say why (not looked up yet, deferred, no RDAP service for the TLD, refused, unreachable) with `next_fetch_at` when the next lookup is due.',
    },
    {},
    async (d) => {
      const w = whoisView(await whois(ctx.db).findOne({ _id: d.domain }), d.domain);
      const text =
        w.whois_status !== 'pending'
          ? `${d.domain}: registrar ${w.registrar ?? 'unknown'}, registered ${w.registration_date ?? '?'}, expires ${w.expiry_date ?? '?'}, name servers ${w.name_servers ?? '?'}.`
          : `No registration data for ${d.domain} (${w.lookup_status}): ${w.lookup_detail ?? ''} Next lookup: ${w.next_fetch_at ?? 'once queued'}.`;
      return ok(text, { domain: d.domain, whois: w });
    },
  );

  domainTool(
    'get_change_history',
    {
      title: 'Change history of a domain',
      description: `Detected DNS changes of a monitored domain (mx, email_gateway, spf, dmarc, dmarc_policy_p, ns, …) since this account added it, newest first, as GET /api/v1/domains/{id}/changes/. At most ${D.mcpChangesMax} per call; page with offset.`,
    },
    {
      limit: z.number().int().min(1).max(D.mcpChangesMax).default(50).describe(`Changes per call (1-${D.mcpChangesMax}, default 50).`),
      offset: offsetArg,
    },
    async (d, { limit, offset }) => {
      const { items, total } = await accountChanges(ctx.db, d, caller.plan.globalDomainView, limit, offset);
      const lines = items.map((c) => `${c.detected_at} ${c.field_name}: ${c.old_value ?? '(none)'} → ${c.new_value ?? '(none)'}`);
      return ok([`${total} change${total === 1 ? '' : 's'} of ${d.domain}; ${items.length} from offset ${offset}.`, ...lines].join('\n'), { domain: d.domain, changes: items, total_count: total, limit, offset });
    },
  );

  server.registerTool(
    'get_dashboard_summary',
    {
      title: 'Portfolio dashboard summary',
      description: 'Portfolio-wide figures as GET /api/v1/dashboard/summary/: total domains, gateway and DMARC distributions, SPF status, scan freshness, the 20 latest changes of the last 7 days and how many domains need attention (DMARC missing or p=none, SPF missing or over 10 lookups).',
      inputSchema: {},
      annotations: READ,
    },
    () =>
      guarded(env, async () => {
        const s = await cachedDashboardSummary(ctx.db, ctx.redis, accountId);
        const dm = s.dmarc_distribution;
        const text =
          `${s.total_domains} domains; DMARC reject ${dm.reject.count}, quarantine ${dm.quarantine.count}, none ${dm.none.count}, missing ${dm.missing.count}; ` +
          `SPF valid ${s.spf_status.valid}, over limit ${s.spf_status.over_limit}, missing ${s.spf_status.missing}; ${s.needs_attention_count} need attention; ${s.recent_changes.length} recent changes.`;
        return ok(text, s);
      }),
  );
}
