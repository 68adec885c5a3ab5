import { z } from 'zod';
import { env, serviceSchema } from '@dv/runtime';
import { LOOKUP_DEFAULTS } from './defaults.ts';

export const lookupConfigSchema = z.object({
  ...serviceSchema(LOOKUP_DEFAULTS.port),
  DNS_SERVERS: env.hostPorts(),
  /** Where RDAP base URLs come from; empty = the IANA bootstrap data shipped with the engine. */
  RDAP_BOOTSTRAP_URL: env.url(['http:', 'https:']).optional(),
});
export type LookupConfig = z.infer<typeof lookupConfigSchema>;
