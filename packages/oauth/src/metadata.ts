import type { OAuthMetadata, OAuthProtectedResourceMetadata } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { OAuthServerOptions, ProtectedResource } from './options.ts';

// Discovery documents: RFC 8414 authorization-server metadata and RFC 9728 protected-resource
// metadata. The service is both the authorization server and the resource; `baseUrl` is what
// clients reach it at.

const AUTH_METHODS = ['none', 'client_secret_post', 'client_secret_basic'];

type MetaOptions = Pick<OAuthServerOptions, 'baseUrl' | 'scope' | 'documentationUrl'>;

export function authorizationServerMetadata(o: MetaOptions): OAuthMetadata {
  const base = o.baseUrl;
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
    scopes_supported: [o.scope],
    service_documentation: o.documentationUrl,
  };
}

export function protectedResourceMetadata(o: MetaOptions, resource: ProtectedResource): OAuthProtectedResourceMetadata {
  return {
    resource: `${o.baseUrl}${resource.path}`,
    authorization_servers: [o.baseUrl],
    bearer_methods_supported: ['header'],
    scopes_supported: [o.scope],
    resource_name: resource.name,
    resource_documentation: o.documentationUrl,
  };
}

/**
 * The well-known paths and their documents: protected-resource metadata per resource
 * (`/.well-known/oauth-protected-resource<path>`), and the authorization-server metadata at its
 * RFC 8414 place and under each resource path (where clients that take the MCP URL for the
 * issuer look).
 */
export function wellKnownDocuments(o: MetaOptions, resources: readonly ProtectedResource[]): Record<string, unknown> {
  const docs: Record<string, unknown> = { '/.well-known/oauth-authorization-server': authorizationServerMetadata(o) };
  for (const r of resources) {
    docs[`/.well-known/oauth-protected-resource${r.path}`] = protectedResourceMetadata(o, r);
    if (r.path) docs[`/.well-known/oauth-authorization-server${r.path}`] = authorizationServerMetadata(o);
  }
  return docs;
}

/** RFC 9728 §5.1: where a 401 on `requestPath` points clients to find how to get a token. */
export function resourceMetadataUrl(baseUrl: string, resources: readonly ProtectedResource[], requestPath: string): string {
  const match = resources.filter((r) => r.path === '' || requestPath === r.path || requestPath.startsWith(`${r.path}/`)).sort((a, b) => b.path.length - a.path.length)[0];
  return `${baseUrl}/.well-known/oauth-protected-resource${match?.path ?? ''}`;
}
