import { randomBytes } from 'node:crypto';
import { unsafe, type ProductionRules } from '@dv/runtime';

// The HMAC key of signed CSV links (and, in the gateway, of sealed OAuth consent requests). The
// gateway verifies links and the notifier (in the scheduler) makes them, so both resolve the key
// here, the same way. There is no key in the source: a constant there signed every local and
// unconfigured stack's links with a value anyone could read.

/**
 * Keys that have been in this repository (the former development key, the test harness's key):
 * production refuses them, since anyone can sign links with them.
 */
export const PUBLISHED_DOWNLOAD_SECRETS: readonly string[] = [
  'development-only-download-signing-secret-not-for-production',
  'test-download-secret-test-download-secret',
];

/** DOWNLOAD_SIGNING_SECRET's production rule, shared by the services that hold the key. */
export const downloadSecretProductionRules: ProductionRules<{ DOWNLOAD_SIGNING_SECRET?: string | undefined }> = {
  DOWNLOAD_SIGNING_SECRET: unsafe.secret('HMAC key of download links; the same on every gateway and scheduler', PUBLISHED_DOWNLOAD_SECRETS),
};

/**
 * The key in force. Unset outside production (a service started by hand): a random key for this
 * process only, with a warning, so its own links work and nobody else's key can forge them; links
 * made by another process (the scheduler's emails, another replica) then fail, which is why
 * `npm start` and the test harnesses pass one key to every service.
 */
export function resolveDownloadSecret(configured: string | undefined, nodeEnv: string): { secret: string; warning?: string } | { error: string } {
  if (configured) return { secret: configured };
  if (nodeEnv === 'production') return { error: 'DOWNLOAD_SIGNING_SECRET (or DOWNLOAD_SIGNING_SECRET_FILE) is required when NODE_ENV=production' };
  return {
    secret: randomBytes(32).toString('base64url'),
    warning: 'DOWNLOAD_SIGNING_SECRET not set: using a random key for this process only (links made by other processes will not verify); npm start passes one per stack',
  };
}
