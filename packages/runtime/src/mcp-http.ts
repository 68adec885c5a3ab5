import type { Request, Response } from 'express';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

// One MCP request over Streamable HTTP, stateless (no session id): every request gets a fresh
// server and transport, so any replica answers any request, and the answer is plain JSON (no SSE
// stream: the tools are request/response). Shared by the services' POST /mcp routes; a subpath
// export (`@dv/runtime/mcp`) so that services without MCP never load the SDK.

/** Connects `server` (built for this request's caller) to a one-shot transport and answers `body`. */
export async function serveStatelessMcp(server: McpServer, req: Request, res: Response, body: unknown): Promise<void> {
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}
