// The HMAC key of signed CSV links. The gateway verifies links and the notifier (in the scheduler)
// makes them, so both resolve the key here, the same way.

/** Used only outside production when no key is configured, so local stacks work out of the box. */
export const DEV_DOWNLOAD_SIGNING_SECRET = 'development-only-download-signing-secret-not-for-production';

export function resolveDownloadSecret(configured: string | undefined, nodeEnv: string): { secret: string; warning?: string } | { error: string } {
  if (configured) return { secret: configured };
  if (nodeEnv === 'production') return { error: 'DOWNLOAD_SIGNING_SECRET (or DOWNLOAD_SIGNING_SECRET_FILE) is required when NODE_ENV=production' };
  return { secret: DEV_DOWNLOAD_SIGNING_SECRET, warning: 'DOWNLOAD_SIGNING_SECRET not set: using the development key; set it in production' };
}
