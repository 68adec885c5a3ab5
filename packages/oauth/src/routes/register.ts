import type { Express } from 'express';
import { clientRegistrationHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/register.js';
import type { OAuthClientInformationFull } from '@modelcontextprotocol/sdk/shared/auth.js';
import { InvalidClientMetadataError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { checkRedirectUri } from '../policy.ts';
import type { OAuthContext } from './route.ts';

// POST /oauth/register: RFC 7591 dynamic client registration, the MCP SDK's handler (metadata
// validation, client id and secret generation, CORS, its own 405, a per-IP rate limit) over our
// store, which keeps the secret as a hash and applies our redirect URI rules. An express router of
// the SDK's, so it is mounted as it is rather than through the route helper.

const AUTH_METHODS = new Set(['none', 'client_secret_post', 'client_secret_basic']);

export function mountRegister(app: Express, s: OAuthContext): void {
  const max = s.options.limits.maxRedirectUris;
  app.use(
    '/oauth/register',
    clientRegistrationHandler({
      clientsStore: {
        getClient: async (id: string) => ((await s.store.getClient(id)) as unknown as OAuthClientInformationFull) ?? undefined,
        registerClient: async (info) => {
          const client = info as OAuthClientInformationFull;
          if (client.redirect_uris.length === 0 || client.redirect_uris.length > max) throw new InvalidClientMetadataError(`register 1 to ${max} redirect_uris`);
          for (const uri of client.redirect_uris) checkRedirectUri(uri);
          const method = client.token_endpoint_auth_method ?? 'client_secret_basic';
          if (!AUTH_METHODS.has(method)) throw new InvalidClientMetadataError(`token_endpoint_auth_method must be one of ${[...AUTH_METHODS].join(', ')}`);
          if ((client.client_name ?? '').length > 200) throw new InvalidClientMetadataError('client_name is longer than 200 characters');
          for (const g of client.grant_types ?? ['authorization_code']) if (g !== 'authorization_code' && g !== 'refresh_token') throw new InvalidClientMetadataError(`grant_type ${g} is not supported`);
          await s.store.saveClient(client);
          return client;
        },
      },
      clientSecretExpirySeconds: s.options.limits.clientSecretTtlSeconds,
      rateLimit: { windowMs: 60 * 60 * 1000, max: s.options.limits.registrationsPerHour },
    }),
  );
}
