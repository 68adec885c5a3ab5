import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { serviceSchema, shapeOf, unsafe, type ProductionRules } from '@dv/runtime';
import { LOOKUP_DEFAULTS as D } from './defaults.ts';
import { LOOKUP_TUNABLES } from './tunables.ts';

export const lookupConfigSchema = z.object({
  ...serviceSchema(D.port),
  ...shapeOf(LOOKUP_TUNABLES),
});
export type LookupConfig = z.infer<typeof lookupConfigSchema>;

// TRUSTED_PROXIES (and BEHIND_PROXY) come with serviceSchema: the IPs or CIDRs of the reverse proxies
// whose X-Forwarded-For we believe; empty (the default) means the socket address is the client, as
// a header anyone can send must never choose whose quota is spent.

/** Refused when NODE_ENV=production (loadConfig lists every one; the process exits 78). */
export const lookupProductionRules: ProductionRules<LookupConfig> = {
  PUBLIC_BASE_URL: unsafe.loopbackUrl(),
  ALLOW_PRIVATE_TARGETS: unsafe.switchOn('accepts loopback/private IP targets (the simulated world only)'),
  WEB_SECRET: unsafe.secret('HMAC key of the web pages\' CSRF tokens; the same on every lookup replica'),
};

/** Where `source` links point: SOURCE_BASE_URL, else this service's own pages. */
export function sourceBaseUrl(config: Pick<LookupConfig, 'SOURCE_BASE_URL' | 'PUBLIC_BASE_URL'>): string {
  return config.SOURCE_BASE_URL ?? config.PUBLIC_BASE_URL;
}

/**
 * The web pages' key in force. Unset outside production (a service started by hand, a test): a
 * random key for this process only, with a warning, so its own forms work and nobody else's key
 * can forge them; a form shown by one replica then fails on another, which is why production
 * requires one.
 */
export function webSecret(config: Pick<LookupConfig, 'WEB_SECRET' | 'NODE_ENV'>): { secret: string; warning?: string } | { error: string } {
  if (config.WEB_SECRET) return { secret: config.WEB_SECRET };
  if (config.NODE_ENV === 'production') return { error: 'WEB_SECRET (or WEB_SECRET_FILE) is required when NODE_ENV=production' };
  return { secret: randomBytes(32).toString('base64url'), warning: 'WEB_SECRET not set: using a random key for this process only (forms shown by another replica will be refused)' };
}
