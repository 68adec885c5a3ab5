// What the services' MCP connector tests use of the authorization server's test flows (@dv/oauth/testing).
export { startBrowserConsent, type BrowserConsent, type ConsentApproval } from './browser.ts';
export { get, oauthFlow, pkce, sealedFrom, type OAuthFlow } from './flow.ts';
export { expectCleanConsentPage, HOSTILE_CLIENT_NAME, type ConsentPageCheck } from './page-check.ts';
export { codeGrantAndReplay, keyRevocation, refreshReuseRevokesGrant, refreshRotationAndRevocation, type GrantKey, type GrantTarget } from './grants.ts';
