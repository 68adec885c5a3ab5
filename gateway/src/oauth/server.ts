import type { Express } from 'express';
import { activeKeyById, parseKey } from '@dv/accounts';
import { OAuthServer } from '@dv/oauth';
import { ApiError } from '@dv/runtime';
import type { GatewayContext } from '../context.ts';
import type { ConsoleContext } from '../web/context.ts';
import { GATEWAY_OAUTH_RESOURCES } from './metadata.ts';
import { consoleSessionApproval } from './session-approval.ts';
import { GATEWAY_OAUTH_STORE, gatewayOAuthLimits } from './store.ts';

// The gateway's OAuth authorization server for MCP connector clients (docs/oauth.md): @dv/oauth
// with the verification API's keys (dv_live_/dv_test_, checked by the same AuthService as every
// /v1 call, so plan and account status apply), its scope `verify`, its collections and token
// prefixes. A token acts as the key it was made from on /mcp and on every /v1 route. A person
// signed in to the console may approve with one of their account's keys instead of pasting one
// (session-approval.ts); the consent page uses the console's assets.

export const GATEWAY_OAUTH_SCOPE = 'verify';

export function gatewayOAuthServer(ctx: GatewayContext, cc: ConsoleContext): OAuthServer {
  const base = ctx.config.PUBLIC_BASE_URL;
  return new OAuthServer({
    db: ctx.db,
    log: ctx.log,
    baseUrl: base,
    resources: GATEWAY_OAUTH_RESOURCES,
    scope: GATEWAY_OAUTH_SCOPE,
    documentationUrl: `${base}/v1/openapi.json`,
    sealSecret: ctx.downloadSecret,
    marks: ctx.marks,
    ...GATEWAY_OAUTH_STORE,
    // The console's assets, already served at /assets/ (web/mount.ts): the consent page's styles.
    assets: cc.assets,
    consent: {
      productName: 'Email verification',
      whatItMayDo: "verify addresses (spending that key's credits; sandbox keys are free), create, read and cancel jobs, and read your account.",
      keyLabel: 'API key',
      keyPlaceholder: 'dv_live_… or dv_test_…',
      shapeHint: 'Paste an API key: it starts with dv_live_ or dv_test_.',
    },
    keys: {
      // An access token pasted as a key is not a key: only dv_live_/dv_test_ shapes go on.
      looksLikeKey: (presented) => parseKey(presented) !== null,
      verify: async (presented) => {
        try {
          const caller = await ctx.auth.authenticate(`Bearer ${presented}`);
          return { ok: true, keyId: caller.key._id, accountId: caller.account._id };
        } catch (err) {
          if (!(err instanceof ApiError) || err.status >= 500) throw err;
          return { ok: false, message: String(err.detail), wrongKey: err.code === 'invalid_api_key' };
        }
      },
      isActive: async (keyId) => {
        const found = await activeKeyById(ctx.db, keyId);
        return found !== null && found.account.status === 'active';
      },
    },
    sessionApproval: consoleSessionApproval(cc),
    attempts: ctx.auth.attempts,
    limits: gatewayOAuthLimits(ctx.config.OAUTH_REGISTRATIONS_PER_HOUR),
    methodNotAllowed: (method, path, allow) => new ApiError('method_not_allowed', `${method} is not supported on ${path}; use ${allow}.`, {}, { Allow: allow }),
  });
}

/** The OAuth endpoints and discovery documents; before the gateway's 404 handler. */
export function mountGatewayOAuth(app: Express, ctx: GatewayContext, cc: ConsoleContext): void {
  gatewayOAuthServer(ctx, cc).mount(app);
}
