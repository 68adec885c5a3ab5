import { activePortfolioKeyById, isPortfolioKeyShape, lookupPortfolioKey } from '@dv/accounts';
import { COLLECTIONS, PORTFOLIO_PLANS } from '@dv/contracts';
import { OAuthServer, type ProtectedResource } from '@dv/oauth';
import { AuthAttemptLimiter, type Logger } from '@dv/runtime';
import { loadAssets, WEB_ASSETS_DIR } from '@dv/web';
import type { Db } from 'mongodb';
import type { Redis } from 'ioredis';
import { PortfolioError } from '../api/errors.ts';
import { PORTFOLIO_DEFAULTS as D } from '../defaults.ts';

// The connector's OAuth 2.1 authorization server (docs/portfolio-scanner.md "MCP connector"):
// @dv/oauth with portfolio keys (svc_live_) pasted on the consent page, the scope `mcp`, its own
// collections and token prefixes (svc_oat_…), so a portfolio token never works on the other
// services nor theirs here. A token is only ever as good as the key it was made from: revoking the
// key refuses its tokens on the next call (they are resolved on every call, like keys).

export const MCP_PATH = '/mcp';
export const MCP_SCOPE = 'mcp';
export const PORTFOLIO_OAUTH_RESOURCES: ProtectedResource[] = [{ path: MCP_PATH, name: 'Domain portfolio MCP connector' }];

export interface ConnectorOAuthOptions {
  db: Db;
  redis: Redis;
  log: Logger;
  /** PUBLIC_BASE_URL: what MCP clients reach this service at. */
  baseUrl: string;
  /** HMAC key of the sealed consent form (the export-link key; the label keeps the uses apart). */
  sealSecret: string;
  redisPrefix: string;
}

/** Why a pasted key cannot connect, or null when it can (plan with API access, active account). */
async function checkKey(db: Db, presented: string): Promise<{ keyId: string; accountId: string } | { message: string; wrongKey: boolean }> {
  const found = await lookupPortfolioKey(db, presented);
  if (!found.ok) return { message: 'The key is not valid: it is wrong, revoked or expired.', wrongKey: true };
  if (found.account.status !== 'active') return { message: 'This account is inactive; contact support.', wrongKey: false };
  const plan = found.account.portfolio_plan ? PORTFOLIO_PLANS[found.account.portfolio_plan] : undefined;
  if (!plan?.apiAccess) return { message: `The ${plan?.label ?? "account's"} plan does not include API access; the connector is available on Enterprise, Enterprise Max and Enterprise Max Premium.`, wrongKey: false };
  return { keyId: found.key._id, accountId: found.account._id };
}

export function connectorOAuth(o: ConnectorOAuthOptions): OAuthServer {
  return new OAuthServer({
    db: o.db,
    log: o.log,
    baseUrl: o.baseUrl,
    resources: PORTFOLIO_OAUTH_RESOURCES,
    scope: MCP_SCOPE,
    documentationUrl: `${o.baseUrl.replace(/\/+$/, '')}/api/v1/openapi.json`,
    sealSecret: o.sealSecret,
    collections: { clients: COLLECTIONS.portfolioOauthClients.name, codes: COLLECTIONS.portfolioOauthCodes.name, tokens: COLLECTIONS.portfolioOauthTokens.name },
    tokenPrefixes: { access: 'svc_oat_', refresh: 'svc_ort_', code: 'svc_oac_' },
    // @dv/web's base.css and favicon for the consent page; mountPortfolioConnector serves them.
    assets: loadAssets([WEB_ASSETS_DIR]),
    consent: {
      productName: 'Domain portfolio',
      whatItMayDo: "read your monitored domains, their scan results, registration data, change history and dashboard, add domains to monitoring and queue CSV exports (nothing is deleted). Calls count against that key's limits.",
      keyLabel: 'Portfolio API key',
      keyPlaceholder: 'svc_live_…',
      shapeHint: 'Paste a portfolio API key: it starts with svc_live_ (keys of the other services do not work here).',
    },
    keys: {
      looksLikeKey: isPortfolioKeyShape,
      verify: async (presented) => {
        const r = await checkKey(o.db, presented);
        return 'keyId' in r ? { ok: true, ...r } : { ok: false, ...r };
      },
      isActive: async (keyId) => {
        const found = await activePortfolioKeyById(o.db, keyId);
        return found !== null && found.account.status === 'active';
      },
    },
    attempts: new AuthAttemptLimiter({ redis: o.redis, keyPrefix: `${o.redisPrefix}oauthip`, pointsPerMinute: D.oauthAttemptsPerIpPerMinute, failurePoints: D.oauthFailurePoints }),
    limits: {
      codeTtlSeconds: D.oauthCodeTtlS,
      accessTtlSeconds: D.oauthAccessTokenTtlS,
      refreshTtlSeconds: D.oauthRefreshTokenTtlS,
      clientUnusedTtlSeconds: D.oauthClientUnusedTtlS,
      clientSecretTtlSeconds: 0,
      consentTtlSeconds: D.oauthConsentTtlS,
      maxRedirectUris: D.oauthMaxRedirectUris,
      registrationsPerHour: D.oauthRegistrationsPerHour,
    },
    methodNotAllowed: (method, path, allow) => new PortfolioError('method_not_allowed', `${method} is not supported on ${path}; use ${allow}.`, { Allow: allow }),
  });
}
