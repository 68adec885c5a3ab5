import { env, unsafe, type ProductionRules } from '@dv/runtime';
import { z } from 'zod';
import { NOTIFY_DEFAULTS as D } from './defaults.ts';
import type { NotifyWorkerOptions } from './worker.ts';

// Config fields a service that runs the notify worker spreads into its own schema (the scheduler).
// PUBLIC_BASE_URL and DOWNLOAD_SIGNING_SECRET are not here: the service already has them (or shares
// the gateway's), and passes them to notifyWorkerSettings.

export const notifyConfigSchema = {
  /** Multiplies the 1m/5m/30m/2h/6h webhook ladder; tests use e.g. 0.001. */
  WEBHOOK_LADDER_SCALE: z.coerce.number().positive().max(1_000).default(D.ladderScale),
  /** TESTS ONLY: lets webhooks reach http:// and loopback receivers. Never set in production. */
  WEBHOOK_ALLOW_HTTP_LOOPBACK: env.bool(false),
  WEBHOOK_TIMEOUT_MS: env.int(D.webhookTimeoutMs, 100, 60_000),
  NOTIFY_POLL_INTERVAL_MS: env.int(D.pollIntervalMs, 10, 600_000),
  NOTIFY_LEASE_MS: env.int(D.claimLeaseMs, 1_000, 3_600_000),
  /** SMTP relay for completion emails (smtp:// or smtps://, credentials in the URL); unset = no emails sent. */
  SMTP_RELAY_URL: env.url(['smtp:', 'smtps:']).optional(),
  MAIL_FROM: z.string().min(3).default('Email Verification <no-reply@localhost>'),
  DOWNLOAD_LINK_TTL_SECONDS: env.int(D.downloadLinkTtlS, 60, 30 * 24 * 3_600),
};

export type NotifyConfig = z.infer<z.ZodObject<typeof notifyConfigSchema>>;

/** WEBHOOK_ALLOW_HTTP_LOOPBACK's production rule (also for a service that only checks webhook URLs). */
export const webhookLoopbackRule = unsafe.switchOn('lets webhooks reach http:// and loopback receivers (tests only)');

/** What a service running the worker refuses with NODE_ENV=production (spread into its rules). */
export const notifyProductionRules: ProductionRules<NotifyConfig> = {
  WEBHOOK_ALLOW_HTTP_LOOPBACK: webhookLoopbackRule,
  // The default sender is @localhost: receivers drop it, and it is not an address we answer.
  MAIL_FROM: (from, c) => (c.SMTP_RELAY_URL ? unsafe.localhostEmail()(from, c) : undefined),
};

/** Worker options from validated config plus what the service holds already. */
export function notifyWorkerSettings(
  config: NotifyConfig,
  extra: Pick<NotifyWorkerOptions, 'db' | 'log' | 'registry' | 'publicBaseUrl'> & { downloadSecret: string },
): NotifyWorkerOptions {
  return {
    db: extra.db,
    log: extra.log,
    registry: extra.registry,
    publicBaseUrl: extra.publicBaseUrl,
    ladderScale: config.WEBHOOK_LADDER_SCALE,
    allowHttpLoopback: config.WEBHOOK_ALLOW_HTTP_LOOPBACK,
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    pollIntervalMs: config.NOTIFY_POLL_INTERVAL_MS,
    leaseMs: config.NOTIFY_LEASE_MS,
    ...(config.SMTP_RELAY_URL
      ? { email: { transport: config.SMTP_RELAY_URL, from: config.MAIL_FROM, downloadSecret: extra.downloadSecret, downloadLinkTtlS: config.DOWNLOAD_LINK_TTL_SECONDS } }
      : {}),
  };
}
