import { z } from 'zod';
import { downloadSecretProductionRules, notifyConfigSchema, resolveDownloadSecret, webhookLoopbackRule } from '@dv/notify';
import { env, serviceSchema, unsafe, type ProductionRules } from '@dv/runtime';
import { GATEWAY_DEFAULTS as D } from './defaults.ts';

// Validated once at start (runService exits listing every bad variable). Secrets come through
// NAME_FILE in production (see loadConfig in @dv/runtime).
export const gatewayConfigSchema = z.object({
  ...serviceSchema(D.port),
  PUBLIC_BASE_URL: env.url(['http:', 'https:']).default(D.publicBaseUrl).transform((v) => v.replace(/\/+$/, '')),
  UPGRADE_URL: env.url(['http:', 'https:']).default(D.upgradeUrl),
  /**
   * HMAC key of signed download links and sealed OAuth consent requests; at least 32 characters;
   * every replica and the scheduler need the same one. Required when NODE_ENV=production; unset
   * elsewhere, a random key for this process only (npm start passes one per stack).
   */
  DOWNLOAD_SIGNING_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  DOWNLOAD_LINK_TTL_SECONDS: env.int(D.downloadLinkTtlSeconds, 60, 30 * 24 * 60 * 60),
  REDIS_KEY_PREFIX: z.string().regex(/^[A-Za-z0-9_:.-]{0,40}$/).default(D.redisKeyPrefix),
  AUTH_CACHE_TTL_MS: env.int(D.authCacheTtlMs, 0, 300_000),
  /** Credential lookups per client address per minute before 429 (0: off); docs/gateway.md "Abuse before authentication". */
  AUTH_ATTEMPTS_PER_IP_PER_MINUTE: env.int(D.authAttemptsPerIpPerMinute, 0, 10_000_000),
  AUTH_FAILURE_POINTS: env.int(D.authFailurePoints, 1, 10_000),
  AUTH_NEGATIVE_CACHE_TTL_MS: env.int(D.authNegativeCacheTtlMs, 0, 60_000),
  /** TESTS ONLY: MCP verify_list_from_url may fetch loopback targets over http. Never set in production. */
  MCP_LIST_URL_ALLOW_HTTP_LOOPBACK: env.bool(false),
  /**
   * TESTS ONLY: webhook_url may name a loopback receiver, over http or https, as the notify worker
   * allows with the same variable (docs/notify.md §5). Never set in production.
   */
  WEBHOOK_ALLOW_HTTP_LOOPBACK: notifyConfigSchema.WEBHOOK_ALLOW_HTTP_LOOPBACK,
  /** OAuth dynamic client registrations per client IP per hour. */
  OAUTH_REGISTRATIONS_PER_HOUR: env.int(D.oauthRegistrationsPerHour, 1, 100_000),
});
export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;

/** Refused when NODE_ENV=production (loadConfig lists every one; the process exits 78). */
export const gatewayProductionRules: ProductionRules<GatewayConfig> = {
  PUBLIC_BASE_URL: unsafe.loopbackUrl(),
  ...downloadSecretProductionRules,
  MCP_LIST_URL_ALLOW_HTTP_LOOPBACK: unsafe.switchOn('lets MCP verify_list_from_url fetch loopback targets over http (tests only)'),
  WEBHOOK_ALLOW_HTTP_LOOPBACK: webhookLoopbackRule,
};

/** The signing key in force, or an error message when production runs without one. */
export function downloadSecret(config: GatewayConfig): { secret: string; warning?: string } | { error: string } {
  return resolveDownloadSecret(config.DOWNLOAD_SIGNING_SECRET, config.NODE_ENV);
}
