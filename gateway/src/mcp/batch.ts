// One MCP HTTP request may carry a JSON-RPC batch (the SDK takes up to 100 messages), and each
// request in it is as much work as a request of its own: routes/mcp.ts counts them all against
// the per-minute limit. Notifications and responses ask for no work and are not counted.

function isRequest(m: unknown): boolean {
  return typeof m === 'object' && m !== null && typeof (m as { method?: unknown }).method === 'string' && (m as { id?: unknown }).id !== undefined;
}

/** JSON-RPC requests in an MCP POST body: one message or a batch (array). */
export function jsonRpcRequests(body: unknown): number {
  if (Array.isArray(body)) return body.filter(isRequest).length;
  return isRequest(body) ? 1 : 0;
}
