import { z } from 'zod';
import { serveStatelessMcp } from '@dv/runtime/mcp';
import { buildMcpServer } from '../mcp/server.ts';
import { problemResponse } from '@dv/runtime';
import { defineRoute } from './route.ts';

// POST /mcp: MCP over Streamable HTTP, stateless (no session id): every request gets a fresh server
// and transport, so any replica answers any request. Answers are plain JSON (no SSE stream): the
// tools are request/response and send no progress. GET (server-initiated stream) and DELETE
// (session end) have nothing to do without sessions and answer 405, as the transport spec allows.
// A bad Authorization header is refused here with 401 before any JSON-RPC is read.

export const mcpRoute = defineRoute({
  method: 'post',
  path: '/mcp',
  operationId: 'mcp',
  summary: 'MCP endpoint (JSON-RPC 2.0 over Streamable HTTP, stateless)',
  description:
    'Model Context Protocol, protocol revision 2025-11-25 (older revisions negotiated). Send `Accept: application/json, text/event-stream`. Tools: dns_lookup, email_security_check, dkim_discover, whois_lookup, spf_analyze, dmarc_check, blacklist_check, validate, search, fetch, request_api_key.',
  tags: ['mcp'],
  auth: 'optional',
  body: z.unknown().meta({ description: 'A JSON-RPC 2.0 request or notification, e.g. {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"dns_lookup","arguments":{"domain":"example.com"}}}.' }),
  responses: {
    '200': { description: 'The JSON-RPC response.', content: { 'application/json': { schema: z.looseObject({ jsonrpc: z.literal('2.0') }) } } },
    '202': { description: 'Accepted (notifications and responses carry no answer).' },
    '401': problemResponse('The Authorization header is not a valid free key.'),
    '406': { description: 'The Accept header does not allow application/json and text/event-stream (JSON-RPC error body).' },
  },
  handle: async ({ ctx, caller, input, req, res }) => {
    const server = buildMcpServer(ctx, caller);
    await serveStatelessMcp(server, req, res, input.body);
  },
});
