import type { Express } from 'express';
import { clientRegistrationHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/register.js';
import type { OAuthClientInformationFull } from '@modelcontextprotocol/sdk/shared/auth.js';
import { InvalidClientMetadataError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { GatewayContext } from '../context.ts';
import { GATEWAY_DEFAULTS as D } from '../defaults.ts';
import { checkRedirectUri } from '../oauth/policy.ts';

// POST /oauth/register: RFC 7591 dynamic client registration, the MCP SDK's handler (metadata
// validation, client id and secret generation, CORS, a per-IP rate limit) over our store, which
// keeps the secret as a hash and applies our redirect URI rules.

const AUTH_METHODS = new Set(['none', 'client_secret_post', 'client_secret_basic']);

export function mountOAuthRegister(app: Express, ctx: GatewayContext): void {
  app.use(
    '/oauth/register',
    clientRegistrationHandler({
      clientsStore: {
        getClient: async (id: string) => ((await ctx.oauth.getClient(id)) as unknown as OAuthClientInformationFull) ?? undefined,
        registerClient: async (info) => {
          const client = info as OAuthClientInformationFull;
          if (client.redirect_uris.length === 0 || client.redirect_uris.length > D.oauthMaxRedirectUris) throw new InvalidClientMetadataError(`register 1 to ${D.oauthMaxRedirectUris} redirect_uris`);
          for (const uri of client.redirect_uris) checkRedirectUri(uri);
          const method = client.token_endpoint_auth_method ?? 'client_secret_basic';
          if (!AUTH_METHODS.has(method)) throw new InvalidClientMetadataError(`token_endpoint_auth_method must be one of ${[...AUTH_METHODS].join(', ')}`);
          if ((client.client_name ?? '').length > 200) throw new InvalidClientMetadataError('client_name is longer than 200 characters');
          for (const g of client.grant_types ?? ['authorization_code']) if (g !== 'authorization_code' && g !== 'refresh_token') throw new InvalidClientMetadataError(`grant_type ${g} is not supported`);
          await ctx.oauth.saveClient(client);
          return client;
        },
      },
      clientSecretExpirySeconds: D.oauthClientSecretTtlSeconds,
      rateLimit: { windowMs: 60 * 60 * 1000, max: ctx.config.OAUTH_REGISTRATIONS_PER_HOUR },
    }),
  );
}
