import { resourceMetadataUrl as packageResourceMetadataUrl, type ProtectedResource } from '@dv/oauth';

/** What the gateway protects: the whole /v1 API and the MCP endpoint (docs/oauth.md). */
export const GATEWAY_OAUTH_RESOURCES: ProtectedResource[] = [
  { path: '', name: 'Email verification API' },
  { path: '/mcp', name: 'Email verification MCP server' },
];

/** RFC 9728 §5.1: where a 401 on `path` points clients to find how to get a token. */
export function resourceMetadataUrl(base: string, path: string): string {
  return packageResourceMetadataUrl(base, GATEWAY_OAUTH_RESOURCES, path);
}
