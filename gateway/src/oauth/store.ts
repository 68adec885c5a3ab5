import type { Db } from 'mongodb';
import { COLLECTIONS } from '@dv/contracts';
import { OAuthStore, type OAuthLimits } from '@dv/oauth';
import { GATEWAY_DEFAULTS as D } from '../defaults.ts';

// The gateway's OAuth collections, token prefixes and lifetimes (docs/oauth.md): the endpoints
// (server.ts) write with them, AuthService reads tokens with them.

export const GATEWAY_OAUTH_STORE = {
  collections: { clients: COLLECTIONS.oauthClients.name, codes: COLLECTIONS.oauthCodes.name, tokens: COLLECTIONS.oauthTokens.name },
  tokenPrefixes: { access: 'dv_oat_', refresh: 'dv_ort_', code: 'dv_oac_' },
};

export function gatewayOAuthLimits(registrationsPerHour: number): OAuthLimits {
  return {
    codeTtlSeconds: D.oauthCodeTtlSeconds,
    accessTtlSeconds: D.oauthAccessTokenTtlSeconds,
    refreshTtlSeconds: D.oauthRefreshTokenTtlSeconds,
    clientUnusedTtlSeconds: D.oauthClientUnusedTtlSeconds,
    clientSecretTtlSeconds: D.oauthClientSecretTtlSeconds,
    consentTtlSeconds: D.oauthConsentTtlSeconds,
    maxRedirectUris: D.oauthMaxRedirectUris,
    registrationsPerHour,
  };
}

/** The store AuthService reads tokens from (the same collections the endpoints write). */
export function gatewayOAuthStore(db: Db): OAuthStore {
  const l = gatewayOAuthLimits(D.oauthRegistrationsPerHour);
  return new OAuthStore(db, { ...GATEWAY_OAUTH_STORE, ttl: { codeSeconds: l.codeTtlSeconds, accessSeconds: l.accessTtlSeconds, refreshSeconds: l.refreshTtlSeconds, clientUnusedSeconds: l.clientUnusedTtlSeconds } });
}
