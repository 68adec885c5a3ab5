import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

// Signed, expiring file links (docs/portfolio-scanner.md "Exports"): any API replica holding the
// same PORTFOLIO_EXPORT_SIGNING_SECRET serves the link without the caller's key, so a link can be
// handed to a browser or a download tool. The link names the number of the API key it was made for
// (`key`), so the download can refuse it once that key is revoked or its account loses access.
// sig = base64url HMAC-SHA256(secret, "portfolio-export\n<path>\n<key>\n<exp>"); the purpose prefix
// keeps these signatures apart from any other HMAC use.

export const EXPORT_FILE_PATH = (taskId: string) => `/api/v1/exports/${encodeURIComponent(taskId)}/file/`;

function signature(path: string, keyNo: number, expS: number, secret: string): Buffer {
  return createHmac('sha256', secret).update(`portfolio-export\n${path}\n${keyNo}\n${expS}`).digest();
}

/** Path and query of a link to the file of `taskId` for the account's key `keyNo`, valid until `expS` (Unix seconds). */
export function signExportLink(taskId: string, keyNo: number, expS: number, secret: string): string {
  const path = EXPORT_FILE_PATH(taskId);
  const exp = Math.floor(expS);
  return `${path}?key=${keyNo}&expires=${exp}&signature=${signature(path, keyNo, exp, secret).toString('base64url')}`;
}

export type LinkCheck = 'ok' | 'expired' | 'bad_signature';

const DIGITS = /^\d{1,12}$/;

/** Checks the link's `key`, `expires` and `signature` as received (strings), compared in constant time. */
export function checkExportLink(taskId: string, key: unknown, expires: unknown, sig: unknown, secret: string, nowS = Math.floor(Date.now() / 1000)): LinkCheck {
  if (typeof key !== 'string' || typeof expires !== 'string' || typeof sig !== 'string' || !DIGITS.test(key) || !DIGITS.test(expires) || !/^[A-Za-z0-9_-]{43}$/.test(sig)) return 'bad_signature';
  const want = signature(EXPORT_FILE_PATH(taskId), Number(key), Number(expires), secret);
  const got = Buffer.from(sig, 'base64url');
  // The comparison runs before the time is looked at: a forged link and an expired one take the same path.
  if (got.length !== want.length || !timingSafeEqual(want, got)) return 'bad_signature';
  return Number(expires) <= nowS ? 'expired' : 'ok';
}

/**
 * The key in force: the configured one; required in production; otherwise a random key for this
 * process only (its own links work, another replica's do not), with a warning.
 */
export function resolveExportSecret(configured: string | undefined, nodeEnv: string): { secret: string; warning?: string } | { error: string } {
  if (configured) return { secret: configured };
  if (nodeEnv === 'production') return { error: 'PORTFOLIO_EXPORT_SIGNING_SECRET (or PORTFOLIO_EXPORT_SIGNING_SECRET_FILE) is required when NODE_ENV=production' };
  return { secret: randomBytes(32).toString('base64url'), warning: 'PORTFOLIO_EXPORT_SIGNING_SECRET not set: export links made by this process only verify here' };
}
