// @dv/oauth: the OAuth 2.1 authorization server of the MCP connectors (dynamic client
// registration, consent page where the user pastes an API key, PKCE, rotating refresh tokens,
// revocation, discovery), one per service with what differs as options (docs/oauth.md).
export { OAuthServer } from './server.ts';
export type { ApprovableKey, KeyCheck, OAuthConsentText, OAuthKeys, OAuthLimits, OAuthServerOptions, ProtectedResource, SessionApproval } from './options.ts';
export { OAuthStore, type ClientDoc, type TokenDoc } from './store.ts';
export { authorizationServerMetadata, protectedResourceMetadata, resourceMetadataUrl, wellKnownDocuments } from './metadata.ts';
