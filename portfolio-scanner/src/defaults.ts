// Every tunable of the portfolio scanner with its default; config.ts reads them from the environment.
export const PORTFOLIO_DEFAULTS = {
  /** HTTP port (design.md: portfolio-scanner 8082). */
  port: 8082,
} as const;
