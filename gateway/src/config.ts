import { z } from 'zod';
import { serviceSchema } from '@dv/runtime';
import { GATEWAY_DEFAULTS } from './defaults.ts';

export const gatewayConfigSchema = z.object({
  ...serviceSchema(GATEWAY_DEFAULTS.port),
});
export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;
