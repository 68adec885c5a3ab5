import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { registerPrompts } from './prompts.ts';
import type { ToolEnv } from './reply.ts';
import { registerResources } from './resources.ts';
import { registerReadTools } from './tools-read.ts';
import { registerWriteTools } from './tools-write.ts';

// The portfolio MCP server: six read tools, two safe writes (no destructive tool), three prompts,
// two resources and a resource template. Stateless: one server per HTTP request, built for the
// caller that request authenticated, so every call is scoped to that account.

export const MCP_SERVER_INFO = { name: 'domain-portfolio', version: '1.0.0' };

export const MCP_TOOL_NAMES = ['list_domains', 'get_domain', 'get_scan_results', 'get_registration_data', 'get_change_history', 'get_dashboard_summary', 'add_domains', 'queue_csv_export'] as const;

const INSTRUCTIONS =
  'Domain portfolio intelligence for the account behind the key: the domains it monitors and, for each, the latest DNS/email-security scan (MX, gateway, SPF, DMARC, DKIM, NS), registration (WHOIS/RDAP) data and change history, plus a dashboard summary. ' +
  'Tools take a domain by name or id. Writes are limited to adding domains and queueing a CSV export; nothing can be deleted here. Each JSON-RPC request counts against the key\'s per-minute limit and the account\'s daily quota, as a REST call does.';

export function buildPortfolioMcpServer(env: ToolEnv): McpServer {
  const server = new McpServer(MCP_SERVER_INFO, { instructions: INSTRUCTIONS });
  registerReadTools(server, env);
  registerWriteTools(server, env);
  registerPrompts(server);
  registerResources(server, env);
  return server;
}
