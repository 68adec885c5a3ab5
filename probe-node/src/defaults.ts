// Every tunable of a probe node with its default; config.ts reads them from the environment.
export const PROBE_DEFAULTS = {
  /** Metrics/health port (design.md: probe-node 9465). */
  port: 9465,
  /** The port dialled on MX hosts; 25 on the internet, the simulated world's port in tests. */
  smtpPort: 25,
  heloName: 'probe.localhost',
  mailFrom: 'verify@probe.localhost',
} as const;
