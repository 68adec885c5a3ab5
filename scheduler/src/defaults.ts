// Every tunable of the scheduler with its default; config.ts reads them from the environment.
export const SCHEDULER_DEFAULTS = {
  /** Metrics/health port (design.md: scheduler 9464). */
  port: 9464,
} as const;
