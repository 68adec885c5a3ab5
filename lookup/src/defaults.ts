// Every tunable of the lookup service with its default; config.ts reads them from the environment.
export const LOOKUP_DEFAULTS = {
  /** HTTP port (design.md: lookup 8081). */
  port: 8081,
} as const;
