import { z } from 'zod';
import { serviceSchema, shapeOf, unsafe, type ProductionRules } from '@dv/runtime';
import { PORTFOLIO_DEFAULTS } from './defaults.ts';
import { PORTFOLIO_TUNABLES } from './tunables.ts';

export const portfolioConfigSchema = z.object({
  ...serviceSchema(PORTFOLIO_DEFAULTS.port),
  ...shapeOf(PORTFOLIO_TUNABLES),
});
export type PortfolioConfig = z.infer<typeof portfolioConfigSchema>;

const exportSecretRule = unsafe.secret('HMAC key of export file links; the same on every API replica');

/** Settings refused when NODE_ENV=production. */
export const portfolioProductionRules: ProductionRules<PortfolioConfig> = {
  // Only the roles that serve HTTP sign links and seal consent forms: a worker is given no key.
  PORTFOLIO_EXPORT_SIGNING_SECRET: (value, config) => (config.PORTFOLIO_ROLE === 'worker' ? undefined : exportSecretRule(value, config)),
  PUBLIC_BASE_URL: unsafe.loopbackUrl(),
};
