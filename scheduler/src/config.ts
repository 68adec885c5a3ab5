import { z } from 'zod';
import { env, serviceSchema } from '@dv/runtime';
import { SCHEDULER_DEFAULTS } from './defaults.ts';

export const schedulerConfigSchema = z.object({
  ...serviceSchema(SCHEDULER_DEFAULTS.port),
  /** Resolvers for MX lookups (`host` or `host:port`, comma-separated); empty = the system's. */
  DNS_SERVERS: env.hostPorts(),
});
export type SchedulerConfig = z.infer<typeof schedulerConfigSchema>;
