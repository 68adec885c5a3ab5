import { expect } from 'vitest';
import { pkce, TEST_REDIRECT, type OAuthFlow } from './flow.ts';

// The grant's life as every mounting of the package must show it, run by the package's own test
// (a bare app) and by each service's (gateway/src/oauth): what differs is how a token is used on
// the service and how soon a refused token is refused there (GrantTarget).

/** A key a user pastes on the consent page, and its account. */
export interface GrantKey {
  key: string;
  accountId: string;
}

export interface GrantTarget {
  /** The scope this mounting grants. */
  scope: string;
  /** The prefix of its access tokens (e.g. `dv_oat_`). */
  accessPrefix: string;
  /** Asserts that `accessToken` acts as account `accountId` (that of the key it was made from). */
  actsAs(accessToken: string, accountId: string): Promise<void>;
  /** Asserts that `accessToken` is refused: at once on one server, once every replica heard on a service that remembers tokens. */
  refused(accessToken: string): Promise<void>;
}

/** Code + verifier gives tokens that act as `key`; a wrong verifier or another redirect URI does not burn the code; a replayed code revokes the grant. */
export async function codeGrantAndReplay(flow: OAuthFlow, key: GrantKey, target: GrantTarget): Promise<void> {
  const clientId = (await flow.register()).body.client_id!;
  const { verifier, challenge } = pkce();
  const code = await flow.approve(clientId, challenge, key.key);
  const bad = await flow.token({ grant_type: 'authorization_code', client_id: clientId, code, code_verifier: pkce().verifier, redirect_uri: TEST_REDIRECT });
  expect(bad).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  const otherRedirect = await flow.token({ grant_type: 'authorization_code', client_id: clientId, code, code_verifier: verifier, redirect_uri: 'http://127.0.0.1:45999/other' });
  expect(otherRedirect.body.error).toBe('invalid_grant');
  const ok = await flow.token({ grant_type: 'authorization_code', client_id: clientId, code, code_verifier: verifier, redirect_uri: TEST_REDIRECT });
  expect(ok.status).toBe(200);
  expect(ok.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: target.scope });
  expect(ok.body.access_token!.startsWith(target.accessPrefix)).toBe(true);
  await target.actsAs(ok.body.access_token!, key.accountId);
  // The same code again: refused, and the tokens it granted stop working.
  const replay = await flow.token({ grant_type: 'authorization_code', client_id: clientId, code, code_verifier: verifier, redirect_uri: TEST_REDIRECT });
  expect(replay.body.error).toBe('invalid_grant');
  await target.refused(ok.body.access_token!);
}

/** Refresh tokens rotate; revoking the refresh token ends the grant, its access token included; unknown tokens revoke quietly. */
export async function refreshRotationAndRevocation(flow: OAuthFlow, key: GrantKey, target: GrantTarget): Promise<void> {
  const clientId = (await flow.register()).body.client_id!;
  const { verifier, challenge } = pkce();
  const first = await flow.token({ grant_type: 'authorization_code', client_id: clientId, code: await flow.approve(clientId, challenge, key.key), code_verifier: verifier });
  const second = await flow.token({ grant_type: 'refresh_token', client_id: clientId, refresh_token: first.body.refresh_token! });
  expect(second.status).toBe(200);
  expect(second.body.refresh_token).not.toBe(first.body.refresh_token);
  await target.actsAs(second.body.access_token!, key.accountId);
  const revoked = await flow.post('/oauth/revoke', { client_id: clientId, token: second.body.refresh_token! });
  expect(revoked.status).toBe(200);
  // Both JSON endpoints are CORS-open for browser-based clients, errors included.
  expect(revoked.headers.get('access-control-allow-origin')).toBe('*');
  await target.refused(second.body.access_token!);
  expect((await flow.token({ grant_type: 'refresh_token', client_id: clientId, refresh_token: second.body.refresh_token! })).body.error).toBe('invalid_grant');
  // Unknown tokens revoke quietly (RFC 7009).
  expect((await flow.post('/oauth/revoke', { client_id: clientId, token: `${target.accessPrefix}unknown` })).status).toBe(200);
}

/**
 * A rotated refresh token presented again means two parties hold the grant (RFC 9700 §4.14.2):
 * the replay gets invalid_grant and the whole grant ends, the newest tokens included.
 */
export async function refreshReuseRevokesGrant(flow: OAuthFlow, key: GrantKey, target: GrantTarget): Promise<void> {
  const clientId = (await flow.register()).body.client_id!;
  const { verifier, challenge } = pkce();
  const first = await flow.token({ grant_type: 'authorization_code', client_id: clientId, code: await flow.approve(clientId, challenge, key.key), code_verifier: verifier });
  const second = await flow.token({ grant_type: 'refresh_token', client_id: clientId, refresh_token: first.body.refresh_token! });
  expect(second.status).toBe(200);
  await target.actsAs(second.body.access_token!, key.accountId);
  const replay = await flow.token({ grant_type: 'refresh_token', client_id: clientId, refresh_token: first.body.refresh_token! });
  expect(replay.body.error).toBe('invalid_grant');
  await target.refused(second.body.access_token!);
  expect((await flow.token({ grant_type: 'refresh_token', client_id: clientId, refresh_token: second.body.refresh_token! })).body.error).toBe('invalid_grant');
}

/** Revoking the API key (`revokeKey`) refuses the tokens made from it, and their refresh too. */
export async function keyRevocation(flow: OAuthFlow, key: GrantKey, revokeKey: () => Promise<unknown>, target: GrantTarget): Promise<void> {
  const clientId = (await flow.register()).body.client_id!;
  const { verifier, challenge } = pkce();
  const t = await flow.token({ grant_type: 'authorization_code', client_id: clientId, code: await flow.approve(clientId, challenge, key.key), code_verifier: verifier });
  await target.actsAs(t.body.access_token!, key.accountId);
  await revokeKey();
  await target.refused(t.body.access_token!);
  expect((await flow.token({ grant_type: 'refresh_token', client_id: clientId, refresh_token: t.body.refresh_token! })).body.error).toBe('invalid_grant');
}
