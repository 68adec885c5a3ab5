import { z } from 'zod';
import { serveStatelessMcp } from '@dv/runtime/mcp';
import { okSchema } from '../api/envelope.ts';
import { errorResponse, PortfolioError } from '../api/errors.ts';
import { defineRoute } from '../api/route.ts';
import { MCP_PATH } from './oauth.ts';
import { buildPortfolioMcpServer, MCP_TOOL_NAMES } from './server.ts';

// POST /mcp: MCP over Streamable HTTP, stateless (no session id): every request gets a fresh server
// and transport, so any replica answers any request. The caller (portfolio key or OAuth token) is
// authenticated and counted first, like a REST call: 401/403/429 in the API's envelope before any
// JSON-RPC is read. One JSON-RPC message per request: a batch (removed from MCP in 2025-06-18)
// would be several calls for one count, so it is refused. Answers are plain JSON (no SSE stream).
// GET (server-initiated stream) and DELETE (session end) have nothing to do without sessions: 405.

export const mcpRoute = defineRoute({
  method: 'post',
  path: MCP_PATH,
  operationId: 'mcp',
  summary: 'MCP connector (JSON-RPC 2.0 over Streamable HTTP, stateless)',
  description: `Model Context Protocol for agents; a portfolio key or an OAuth access token (scope mcp). Send \`Accept: application/json, text/event-stream\`. Tools: ${MCP_TOOL_NAMES.join(', ')}.`,
  tags: ['mcp'],
  body: z.unknown().meta({ description: 'One JSON-RPC 2.0 request or notification, e.g. {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_dashboard_summary","arguments":{}}}.' }),
  responses: {
    '200': { description: 'The JSON-RPC response.', content: { 'application/json': { schema: okSchema('McpReply', z.unknown()) } } },
    '400': errorResponse('invalid_request: a JSON-RPC batch (send one message per request).'),
  },
  handle: async ({ ctx, caller, input, req, res }) => {
    if (Array.isArray(input.body)) throw new PortfolioError('invalid_request', 'Send one JSON-RPC message per request; batches are not accepted (each message is one call against your limits).');
    const server = buildPortfolioMcpServer({ ctx, caller, req });
    await serveStatelessMcp(server, req, res, input.body);
  },
});
