import { z } from 'zod';
import { serviceSchema, shapeOf, unsafe, type ProductionRules } from '@dv/runtime';
import { PROBE_DEFAULTS as D } from './defaults.ts';
import { PROBE_TUNABLES } from './tunables.ts';

export const probeConfigSchema = z
  .object({
    ...serviceSchema(D.port),
    ...shapeOf(PROBE_TUNABLES),
  })
  .superRefine((c, ctx) => {
    const pairs = [
      ['PROBE_CONNECT_TIMEOUT_MS', 'PROBE_MAX_CONNECT_TIMEOUT_MS'],
      ['PROBE_GREETING_TIMEOUT_MS', 'PROBE_MAX_GREETING_TIMEOUT_MS'],
      ['PROBE_COMMAND_TIMEOUT_MS', 'PROBE_MAX_COMMAND_TIMEOUT_MS'],
      ['PROBE_SESSION_TIMEOUT_MS', 'PROBE_MAX_SESSION_TIMEOUT_MS'],
    ] as const;
    for (const [value, cap] of pairs) {
      if (c[value] > c[cap]) ctx.addIssue({ code: 'custom', path: [value], message: `must not exceed ${cap} (${c[cap]})` });
    }
  });
export type ProbeConfig = z.infer<typeof probeConfigSchema>;

/** Refused when NODE_ENV=production: remote MX hosts see these names, and private MX addresses are test worlds only (loadConfig lists every one; exit 78). */
export const probeProductionRules: ProductionRules<ProbeConfig> = {
  PROBE_HELO_NAME: unsafe.localhostName(),
  PROBE_MAIL_FROM: unsafe.localhostEmail(),
  PROBE_ALLOW_PRIVATE_MX: unsafe.switchOn('probes may connect to private and special-purpose MX addresses'),
};
