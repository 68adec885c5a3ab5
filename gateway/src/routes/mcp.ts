import { z } from 'zod';
import { serveStatelessMcp } from '@dv/runtime/mcp';
import { problemResponse } from '@dv/runtime';
import { defineRoute } from '../http/route.ts';
import { jsonRpcRequests } from '../mcp/batch.ts';
import { buildMcpServer, MCP_TOOL_NAMES } from '../mcp/server.ts';

// POST /mcp: MCP over Streamable HTTP, stateless (no session id): every request gets a fresh server
// and transport, so any replica answers any request. The route helper authenticates the bearer key
// first (401/403 problem+json, like every /v1 route, before any JSON-RPC is read) and counts the
// request against the per-minute limit; every further JSON-RPC request of a batch counts as one
// more, before any of them runs (mcp/batch.ts). The tools then act as that key. Answers are plain
// JSON (no SSE stream). GET (server-initiated stream) and DELETE (session end) have nothing to do without
// sessions and answer 405 problem+json from the route helper.

export const mcpRoute = defineRoute({
  method: 'post',
  path: '/mcp',
  operationId: 'mcp',
  summary: 'MCP endpoint (JSON-RPC 2.0 over Streamable HTTP, stateless)',
  description: `Model Context Protocol for agents. Send \`Accept: application/json, text/event-stream\`. Tools: ${MCP_TOOL_NAMES.join(', ')}; prompt: clean_prospect_list. Tool errors come back as JSON-RPC results with isError true.`,
  tags: ['mcp'],
  body: z.unknown().meta({ description: 'A JSON-RPC 2.0 request or notification, e.g. {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_account","arguments":{}}}.' }),
  responses: {
    '200': { description: 'The JSON-RPC response.', content: { 'application/json': { schema: z.looseObject({ jsonrpc: z.literal('2.0') }) } } },
    '202': { description: 'Accepted (notifications and responses carry no answer).' },
    '406': { description: 'The Accept header does not allow application/json and text/event-stream (JSON-RPC error body).' },
    '429': problemResponse('rate_limited: the per-minute request limit; each JSON-RPC request of a batch counts.'),
  },
  handle: async ({ ctx, input, caller, req, res, signal }) => {
    await ctx.limits.batchCalls(caller.account._id, caller.account.limits, jsonRpcRequests(input.body));
    const server = buildMcpServer({ ctx, caller, signal });
    await serveStatelessMcp(server, req, res, input.body);
  },
});
