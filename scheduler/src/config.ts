import { z } from 'zod';
import { downloadSecretProductionRules, notifyProductionRules, notifyTunables } from '@dv/notify';
import { serviceSchema, shapeOf, unsafe, type ProductionRules } from '@dv/runtime';
import { RETRY_POLICY, type RetryPolicy } from '@dv/verdict';
import { SCHEDULER_DEFAULTS as D } from './defaults.ts';
import { SCHEDULER_LINK_TUNABLES, SCHEDULER_TUNABLES } from './tunables.ts';

export const schedulerConfigSchema = z
  .object({
    ...serviceSchema(D.port),
    ...shapeOf(SCHEDULER_TUNABLES),
    // Completion webhooks and emails (@dv/notify, docs/notify.md) run in the scheduler, next to the
    // completions that trigger them.
    ...shapeOf(notifyTunables),
    ...shapeOf(SCHEDULER_LINK_TUNABLES),
  })
  .superRefine((c, ctx) => {
    if (c.LOAD_SATURATED_SECONDS <= c.LOAD_BUSY_SECONDS) ctx.addIssue({ code: 'custom', path: ['LOAD_SATURATED_SECONDS'], message: 'must exceed LOAD_BUSY_SECONDS' });
    if (c.LOAD_SATURATED_CAPACITY <= c.LOAD_BUSY_CAPACITY) ctx.addIssue({ code: 'custom', path: ['LOAD_SATURATED_CAPACITY'], message: 'must exceed LOAD_BUSY_CAPACITY' });
    if (c.PROVIDER_PAUSE_MAX_MS < c.PROVIDER_PAUSE_INITIAL_MS) ctx.addIssue({ code: 'custom', path: ['PROVIDER_PAUSE_MAX_MS'], message: 'must not be below PROVIDER_PAUSE_INITIAL_MS' });
    // A slot must outlive the longest session it guards, or a slow session would let a new one in.
    if (c.SESSION_LEASE_MS < c.PROBE_SESSION_TIMEOUT_MS + c.PROBE_REQUEST_MARGIN_MS) {
      ctx.addIssue({ code: 'custom', path: ['SESSION_LEASE_MS'], message: 'must be at least PROBE_SESSION_TIMEOUT_MS + PROBE_REQUEST_MARGIN_MS' });
    }
  });
export type SchedulerConfig = z.infer<typeof schedulerConfigSchema>;

/** Refused when NODE_ENV=production (loadConfig lists every one; the process exits 78). */
export const schedulerProductionRules: ProductionRules<SchedulerConfig> = {
  PUBLIC_BASE_URL: unsafe.loopbackUrl(),
  ...downloadSecretProductionRules,
  PROBE_MAIL_FROM: unsafe.localhostEmail(),
  ...notifyProductionRules,
};

/**
 * The retry policy as nextAction() takes it: both ladders in (scaled) minutes after the first try,
 * the throttle pause and the IP block, from the settings (whose defaults are @dv/verdict's data).
 */
export function retryPolicy(
  config: Pick<SchedulerConfig, 'GREYLIST_LADDER_MINUTES' | 'TEMP_FAILURE_LADDER_MINUTES' | 'GREYLIST_LADDER_SCALE' | 'PROVIDER_PAUSE_INITIAL_MS' | 'PROVIDER_PAUSE_MAX_MS' | 'IP_BLOCK_MS'>,
): RetryPolicy {
  const scale = (steps: readonly number[]) => steps.map((m) => m * config.GREYLIST_LADDER_SCALE);
  return {
    greylist: scale(config.GREYLIST_LADDER_MINUTES),
    temporary: scale(config.TEMP_FAILURE_LADDER_MINUTES),
    throttlePause: { initialMs: config.PROVIDER_PAUSE_INITIAL_MS, factor: RETRY_POLICY.throttlePause.factor, maxMs: config.PROVIDER_PAUSE_MAX_MS },
    ipBlockMs: config.IP_BLOCK_MS,
  };
}
