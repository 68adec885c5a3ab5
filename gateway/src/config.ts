import { z } from 'zod';
import { downloadSecretProductionRules, notifyProductionRules, resolveDownloadSecret, webhookLoopbackRule } from '@dv/notify';
import { serviceSchema, shapeOf, unsafe, type ProductionRules } from '@dv/runtime';
import { GATEWAY_DEFAULTS as D } from './defaults.ts';
import { GATEWAY_TUNABLES } from './tunables.ts';

// Validated once at start (runService exits listing every bad variable); the variables are the
// rows of tunables.ts. Secrets come through NAME_FILE in production (see loadConfig in @dv/runtime).
export const gatewayConfigSchema = z.object({
  ...serviceSchema(D.port),
  ...shapeOf(GATEWAY_TUNABLES),
});
export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;

/** Refused when NODE_ENV=production (loadConfig lists every one; the process exits 78). */
export const gatewayProductionRules: ProductionRules<GatewayConfig> = {
  PUBLIC_BASE_URL: unsafe.loopbackUrl(),
  ...downloadSecretProductionRules,
  MCP_LIST_URL_ALLOW_HTTP_LOOPBACK: unsafe.switchOn('lets MCP verify_list_from_url fetch loopback targets over http (tests only)'),
  WEBHOOK_ALLOW_HTTP_LOOPBACK: webhookLoopbackRule,
  MAIL_FROM: notifyProductionRules.MAIL_FROM as ProductionRules<GatewayConfig>['MAIL_FROM'],
};

/** The signing key in force, or an error message when production runs without one. */
export function downloadSecret(config: GatewayConfig): { secret: string; warning?: string } | { error: string } {
  return resolveDownloadSecret(config.DOWNLOAD_SIGNING_SECRET, config.NODE_ENV);
}
