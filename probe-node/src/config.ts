import { z } from 'zod';
import { env, serviceSchema } from '@dv/runtime';
import { PROBE_DEFAULTS } from './defaults.ts';

const hostname = z.string().regex(/^(?=.{1,253}$)([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/, 'must be a host name (FQDN)');

export const probeConfigSchema = z.object({
  ...serviceSchema(PROBE_DEFAULTS.port),
  SMTP_PORT: env.port(PROBE_DEFAULTS.smtpPort),
  /** Source addresses this node binds its SMTP connections to; empty = the OS chooses. */
  PROBE_SOURCE_IPS: env.ipList(),
  PROBE_HELO_NAME: hostname.default(PROBE_DEFAULTS.heloName),
  PROBE_MAIL_FROM: z.email('must be an email address').default(PROBE_DEFAULTS.mailFrom),
  PROBE_NODE_ID: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1-64 letters, digits, _ or -').optional(),
});
export type ProbeConfig = z.infer<typeof probeConfigSchema>;
