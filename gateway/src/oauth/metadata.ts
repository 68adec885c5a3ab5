import type { OAuthMetadata, OAuthProtectedResourceMetadata } from '@modelcontextprotocol/sdk/shared/auth.js';
import { OAUTH_SCOPE } from './policy.ts';

// Discovery documents: RFC 8414 authorization-server metadata and RFC 9728 protected-resource
// metadata. The gateway is both the authorization server and the resource; `base` is
// PUBLIC_BASE_URL (what clients reach us at).

const AUTH_METHODS = ['none', 'client_secret_post', 'client_secret_basic'];

export function authorizationServerMetadata(base: string): OAuthMetadata {
  return {
    issuer: base,
    authorization_endpoint: `${base}/oauth/authorize`,
    token_endpoint: `${base}/oauth/token`,
    registration_endpoint: `${base}/oauth/register`,
    revocation_endpoint: `${base}/oauth/revoke`,
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: AUTH_METHODS,
    revocation_endpoint_auth_methods_supported: AUTH_METHODS,
    scopes_supported: [OAUTH_SCOPE],
    service_documentation: `${base}/v1/openapi.json`,
  };
}

/** `resourcePath` '' for the whole API, '/mcp' for the MCP endpoint. */
export function protectedResourceMetadata(base: string, resourcePath: '' | '/mcp'): OAuthProtectedResourceMetadata {
  return {
    resource: `${base}${resourcePath}`,
    authorization_servers: [base],
    bearer_methods_supported: ['header'],
    scopes_supported: [OAUTH_SCOPE],
    resource_name: resourcePath === '/mcp' ? 'Email verification MCP server' : 'Email verification API',
    resource_documentation: `${base}/v1/openapi.json`,
  };
}

/** RFC 9728 §5.1: where a 401 points clients to find how to get a token. */
export function resourceMetadataUrl(base: string, path: string): string {
  return `${base}/.well-known/oauth-protected-resource${path.startsWith('/mcp') ? '/mcp' : ''}`;
}
