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
};
