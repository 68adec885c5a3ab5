import { env, shapeOf, tunables, unsafe, type ProductionRules } from '@dv/runtime';
import { z } from 'zod';
import { NOTIFY_DEFAULTS as D } from './defaults.ts';
import type { NotifyWorkerOptions } from './worker.ts';

// Config fields a service that runs the notify worker spreads into its own schema (the scheduler).
// PUBLIC_BASE_URL and DOWNLOAD_SIGNING_SECRET are not here: the service already has them (or shares
// the gateway's), and passes them to notifyWorkerSettings.

export const notifyTunables = tunables({
  WEBHOOK_LADDER_SCALE: {
    schema: z.coerce.number().positive().max(1_000).default(D.ladderScale),
    unit: 'factor',
    meaning: 'multiplies every wait of the 1m/5m/30m/2h/6h webhook retry ladder (tests: `0.0001` turns minutes into milliseconds)',
  },
  WEBHOOK_ALLOW_HTTP_LOOPBACK: {
    schema: env.bool(false),
    meaning: '**tests only**: webhooks may reach http:// and loopback receivers (127.0.0.0/8, ::1, `localhost`). Refused when `NODE_ENV=production`',
  },
  WEBHOOK_TIMEOUT_MS: { schema: env.int(D.webhookTimeoutMs, 100, 60_000), meaning: 'one webhook POST in all: connect, TLS, request and response' },
  NOTIFY_POLL_INTERVAL_MS: { schema: env.int(D.pollIntervalMs, 10, 600_000), meaning: 'how often a worker looks for due deliveries and emails' },
  NOTIFY_LEASE_MS: {
    schema: env.int(D.claimLeaseMs, 1_000, 3_600_000),
    meaning: "how long a claimed delivery stays one worker's before another may take it over (a crashed worker's attempt is retried then)",
  },
  SMTP_RELAY_URL: {
    schema: env.url(['smtp:', 'smtps:']).optional(),
    defaultText: 'unset: no emails sent',
    meaning: 'SMTP relay for completion emails (`smtp://` or `smtps://`, credentials in the URL)',
  },
  MAIL_FROM: {
    schema: z.string().min(3).default('Email Verification <no-reply@localhost>'),
    meaning: 'sender of completion emails; a `localhost` domain is refused when `NODE_ENV=production` while `SMTP_RELAY_URL` is set',
  },
  DOWNLOAD_LINK_TTL_SECONDS: { schema: env.int(D.downloadLinkTtlS, 60, 30 * 24 * 3_600), meaning: 'validity of the signed CSV link in a completion email' },
});

/** The zod shape of notifyTunables. */
export const notifyConfigSchema = shapeOf(notifyTunables);

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
