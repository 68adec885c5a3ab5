import type { OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { InvalidGrantError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { formField } from './http.ts';
import { checkResource } from './policy.ts';
import { pkceS256Matches } from './secrets.ts';
import type { ClientDoc, OAuthStore } from './store.ts';

// The two grants of POST /oauth/token. A token is only ever as good as the API key it was made
// from: both grants refuse (and end the grant) when that key has been revoked since.

export interface GrantDeps {
  store: OAuthStore;
  baseUrl: string;
  resourcePaths: readonly string[];
  scope: string;
  isActive: (keyId: string) => Promise<boolean>;
}

async function requireActiveKey(d: GrantDeps, keyId: string, grantId: string): Promise<void> {
  if (await d.isActive(keyId)) return;
  await d.store.revokeGrant(grantId);
  throw new InvalidGrantError('The API key this authorization was made from is revoked (or its account is inactive); connect again with an active key.');
}

export async function authorizationCodeGrant(d: GrantDeps, client: ClientDoc, body: Record<string, unknown>): Promise<OAuthTokens> {
  const code = formField(body, 'code', true);
  const verifier = formField(body, 'code_verifier', true);
  const redirectUri = formField(body, 'redirect_uri');
  const resource = checkResource(d.baseUrl, d.resourcePaths, formField(body, 'resource'));
  const pending = await d.store.peekCode(client._id, code);
  // PKCE before consuming: a wrong verifier must not burn the code for its rightful owner.
  if (!pkceS256Matches(verifier, pending.code_challenge)) throw new InvalidGrantError('code_verifier does not match the code_challenge.');
  // RFC 6749 §4.1.3: the same redirect_uri as in the authorization request, exactly.
  if (redirectUri !== undefined && redirectUri !== pending.redirect_uri) throw new InvalidGrantError('redirect_uri differs from the one in the authorization request.');
  if (resource !== null && pending.resource !== null && resource !== pending.resource) throw new InvalidGrantError('resource differs from the one in the authorization request.');
  const granted = await d.store.consumeCode(client._id, code);
  await requireActiveKey(d, granted.key_id, granted.grant_id);
  return d.store.issue({ grantId: granted.grant_id, clientId: client._id, keyId: granted.key_id, accountId: granted.account_id, resource: granted.resource ?? resource, scope: d.scope });
}

export async function refreshTokenGrant(d: GrantDeps, client: ClientDoc, body: Record<string, unknown>): Promise<OAuthTokens> {
  const refresh = formField(body, 'refresh_token', true);
  const resource = checkResource(d.baseUrl, d.resourcePaths, formField(body, 'resource'));
  const old = await d.store.takeRefresh(client._id, refresh);
  await requireActiveKey(d, old.key_id, old.grant_id);
  return d.store.issue({ grantId: old.grant_id, clientId: client._id, keyId: old.key_id, accountId: old.account_id, resource: resource ?? old.resource, scope: d.scope });
}
