import { z } from 'zod';
import { env, serviceSchema } from '@dv/runtime';
import { PORTFOLIO_DEFAULTS } from './defaults.ts';

export const portfolioConfigSchema = z.object({
  ...serviceSchema(PORTFOLIO_DEFAULTS.port),
  DNS_SERVERS: env.hostPorts(),
  RDAP_BOOTSTRAP_URL: env.url(['http:', 'https:']).optional(),
});
export type PortfolioConfig = z.infer<typeof portfolioConfigSchema>;
