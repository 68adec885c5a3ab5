import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import { accountFilter } from '../api/domain-query.ts';
import { cachedDashboardSummary } from '../api/summary.ts';
import { domainDetail, domainItem, domains } from '../api/views.ts';
import { PORTFOLIO_DEFAULTS as D } from '../defaults.ts';
import { findAccountDomain } from './domains.ts';
import type { ToolEnv } from './reply.ts';
import { PortfolioError } from '../api/errors.ts';

/** The name in a resource URI; a malformed escape is the caller's mistake, said as such. */
function decodedName(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new PortfolioError('validation_error', `domain: "${raw.slice(0, 100)}" is not a valid percent-encoded name`);
  }
}

// Resources an MCP client can attach as context: the domain list, the dashboard summary, and one
// domain in full by name (portfolio://domain/{name}). JSON, the same objects as the REST API;
// always the caller's account. A failed read is a JSON-RPC error (resources have no isError).

export const MCP_RESOURCE_URIS = { domains: 'portfolio://domains', summary: 'portfolio://dashboard/summary', domain: 'portfolio://domain/{name}' } as const;

const json = (uri: string, value: unknown): ReadResourceResult => ({ contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(value) }] });

export function registerResources(server: McpServer, env: ToolEnv): void {
  const { ctx, caller } = env;
  const accountId = caller.account._id;

  server.registerResource(
    'domains',
    MCP_RESOURCE_URIS.domains,
    { title: 'Monitored domains', description: `The account's monitored domains (the first ${D.mcpResourceDomainsMax} by id; list_domains pages through all) with gateway, DMARC and SPF.`, mimeType: 'application/json' },
    async (uri) => {
      const q = accountFilter(accountId, {});
      const [docs, total] = await Promise.all([domains(ctx.db).find(q).sort({ id: 1 }).limit(D.mcpResourceDomainsMax).toArray(), domains(ctx.db).countDocuments(q)]);
      return json(uri.href, { total_count: total, domains: docs.map(domainItem) });
    },
  );

  server.registerResource(
    'dashboard_summary',
    MCP_RESOURCE_URIS.summary,
    { title: 'Dashboard summary', description: 'Portfolio-wide figures: distributions, SPF status, scan freshness, recent changes, needs-attention count.', mimeType: 'application/json' },
    async (uri) => json(uri.href, await cachedDashboardSummary(ctx.db, ctx.redis, accountId)),
  );

  server.registerResource(
    'domain',
    new ResourceTemplate(MCP_RESOURCE_URIS.domain, {
      // The first domains by id, so clients can offer them; any monitored name can be read.
      list: async () => {
        const docs = await domains(ctx.db).find(accountFilter(accountId, {}), { projection: { domain: 1 } }).sort({ id: 1 }).limit(100).toArray();
        return { resources: docs.map((d) => ({ uri: `portfolio://domain/${d.domain}`, name: d.domain, mimeType: 'application/json' })) };
      },
    }),
    { title: 'One domain', description: 'One monitored domain in full: user fields, latest scan, recent changes, registration data.', mimeType: 'application/json' },
    async (uri, vars) => {
      const name = decodedName(String(Array.isArray(vars.name) ? vars.name[0] : vars.name));
      return json(uri.href, await domainDetail(ctx.db, await findAccountDomain(ctx.db, accountId, name), caller.plan.globalDomainView));
    },
  );
}
