import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ToolEnv } from './invoke.ts';
import { registerPrompts } from './prompts.ts';
import { registerAccountTools } from './tools-account.ts';
import { registerJobTools } from './tools-jobs.ts';
import { registerVerifyTools } from './tools-verify.ts';

// The gateway's MCP server: ten tools over the same services as the REST API, plus prompts.
// Stateless: one server per HTTP request, built for the caller that request authenticated.

export const MCP_SERVER_INFO = { name: 'email-verification', version: '1.0.0' };

export const MCP_TOOL_NAMES = ['verify_email', 'verify_emails', 'verify_list_from_url', 'get_job', 'get_job_results', 'list_jobs', 'lookup_email', 'cancel_job', 'get_account', 'get_service_status'] as const;

const INSTRUCTIONS =
  'Email verification: check whether addresses can receive mail before sending. Each result has status (deliverable/undeliverable/risky/unknown), score, safe_to_send and decision {action: send/review/drop, why}. ' +
  'Costs: 1 credit per unique address checked with a live key; lookup_email, job reads and sandbox keys are free. Every tool answers within about 25 s; longer work returns a job_id: poll get_job (wait up to 20 s) and read get_job_results. ' +
  'Tool calls carry no idempotency key: do not repeat a verify call that returned a job_id, poll that job instead.';

export function buildMcpServer(env: ToolEnv): McpServer {
  const server = new McpServer(MCP_SERVER_INFO, { instructions: INSTRUCTIONS });
  registerVerifyTools(server, env);
  registerJobTools(server, env);
  registerAccountTools(server, env);
  registerPrompts(server);
  return server;
}
