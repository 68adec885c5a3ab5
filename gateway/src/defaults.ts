// Every tunable of the gateway with its default; config.ts reads them from the environment.
export const GATEWAY_DEFAULTS = {
  /** HTTP port (design.md: gateway 8080). */
  port: 8080,
} as const;
