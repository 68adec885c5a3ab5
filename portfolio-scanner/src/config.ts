import { z } from 'zod';
import { env, serviceSchema, unsafe, type ProductionRules } from '@dv/runtime';
import { PORTFOLIO_DEFAULTS } from './defaults.ts';
import { geoPaths } from './geo/config.ts';
import { operatorOverrides, qps } from './politeness/config.ts';

export const portfolioConfigSchema = z.object({
  ...serviceSchema(PORTFOLIO_DEFAULTS.port),
  DNS_SERVERS: env.hostPorts(),
  RDAP_BOOTSTRAP_URL: env.url(['http:', 'https:']).optional(),
  // Comma-separated mmdb paths, tried in order (e.g. an IPv4 and an IPv6 file); empty = the packaged defaults.
  PORTFOLIO_GEO_CITY_MMDB: geoPaths(),
  PORTFOLIO_GEO_ASN_MMDB: geoPaths(),
  PORTFOLIO_GEO_CACHE_DIR: z.string().default(PORTFOLIO_DEFAULTS.geoCacheDir),
  PORTFOLIO_GEO_RELOAD_CHECK_INTERVAL_MS: env.int(PORTFOLIO_DEFAULTS.geoReloadCheckIntervalMs, 100),
  // Politeness toward DNS (docs/portfolio-scanner.md "Politeness toward DNS"); rates in queries/s.
  PORTFOLIO_DNS_OPERATOR_DEFAULT_QPS: qps(PORTFOLIO_DEFAULTS.dnsOperatorDefaultQps),
  PORTFOLIO_DNS_OPERATOR_QPS: operatorOverrides(),
  PORTFOLIO_DNS_RESOLVER_QPS: qps(PORTFOLIO_DEFAULTS.dnsResolverQps),
  PORTFOLIO_DNS_WORKER_QPS: qps(PORTFOLIO_DEFAULTS.dnsWorkerQps),
  PORTFOLIO_DNS_BUDGET_MAX_WAIT_MS: env.int(PORTFOLIO_DEFAULTS.dnsBudgetMaxWaitMs, 10, 600_000),
  // Divide the operator, resolver and RDAP budgets by the live worker replicas (Redis heartbeat).
  PORTFOLIO_BUDGETS_SHARED: env.bool(true),
  // Registration data (docs/portfolio-scanner.md "Registration data").
  PORTFOLIO_RDAP_SERVER_QPS: qps(PORTFOLIO_DEFAULTS.rdapServerQps),
  PORTFOLIO_WHOIS_REFRESH_INTERVAL_S: env.int(PORTFOLIO_DEFAULTS.whoisRefreshIntervalS, 60),
  PORTFOLIO_WHOIS_NEAR_EXPIRY_DAYS: env.int(PORTFOLIO_DEFAULTS.whoisNearExpiryDays, 0, 365),
  PORTFOLIO_WHOIS_NEAR_EXPIRY_INTERVAL_S: env.int(PORTFOLIO_DEFAULTS.whoisNearExpiryIntervalS, 60),
  // Process roles, workers and the rescan planner (docs/portfolio-scanner.md "Configuration").
  PORTFOLIO_ROLE: z.enum(['api', 'worker', 'both']).default(PORTFOLIO_DEFAULTS.role),
  REDIS_PREFIX: z.string().regex(/^[A-Za-z0-9_:.-]{1,64}$/, 'must be 1-64 letters, digits, _ : . or -').default(PORTFOLIO_DEFAULTS.redisPrefix),
  DNS_TIMEOUT_MS: env.int(PORTFOLIO_DEFAULTS.dnsTimeoutMs, 100, 30_000),
  DNS_RETRIES: env.int(PORTFOLIO_DEFAULTS.dnsRetries, 0, 5),
  DNS_CANARIES: env.domainList(PORTFOLIO_DEFAULTS.dnsCanaries),
  DNS_CANARY_INTERVAL_MS: env.int(PORTFOLIO_DEFAULTS.dnsCanaryIntervalMs, 100, 3_600_000),
  DNS_CANARY_UNRELIABLE_INTERVAL_MS: env.int(PORTFOLIO_DEFAULTS.dnsCanaryUnreliableIntervalMs, 100, 3_600_000),
  PORTFOLIO_RESCAN_INTERVAL_S: env.int(PORTFOLIO_DEFAULTS.rescanIntervalS, 10, 365 * 86_400),
  PORTFOLIO_SCAN_CONCURRENCY: env.int(PORTFOLIO_DEFAULTS.scanConcurrency, 1, 1_000),
  PORTFOLIO_SCAN_PRIORITY_RESERVE: env.int(PORTFOLIO_DEFAULTS.scanPriorityReserve, 0, 1_000),
  PORTFOLIO_SCAN_RETRY_BASE_MS: env.int(PORTFOLIO_DEFAULTS.scanRetryBaseMs, 10, 3_600_000),
  PORTFOLIO_SCAN_RETRY_MAX_MS: env.int(PORTFOLIO_DEFAULTS.scanRetryMaxMs, 10, 86_400_000),
  PORTFOLIO_FULL_DKIM_SWEEP_INTERVAL_S: env.int(PORTFOLIO_DEFAULTS.fullDkimSweepIntervalS, 60, 365 * 86_400),
  PORTFOLIO_PLAN_TICK_MS: env.int(PORTFOLIO_DEFAULTS.planTickMs, 100, 600_000),
  PORTFOLIO_PLAN_BATCH: env.int(PORTFOLIO_DEFAULTS.planBatch, 1, 100_000),
  PORTFOLIO_PLAN_DELAY_MS: env.int(PORTFOLIO_DEFAULTS.planDelayMs, 0, 600_000),
  PORTFOLIO_PLAN_GRACE_S: env.int(PORTFOLIO_DEFAULTS.planGraceS, 1, 7 * 86_400),
  PORTFOLIO_PLANNER_LEASE_MS: env.int(PORTFOLIO_DEFAULTS.plannerLeaseMs, 300, 600_000),
  // Exports (docs/portfolio-scanner.md "Exports"). The HMAC key of file links: every API replica
  // needs the same one (or _FILE); required in production, a per-process random key otherwise.
  PORTFOLIO_EXPORT_SIGNING_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  PORTFOLIO_EXPORT_CONCURRENCY: env.int(PORTFOLIO_DEFAULTS.exportConcurrency, 0, 64),
  PORTFOLIO_EXPORT_TTL_S: env.int(PORTFOLIO_DEFAULTS.exportTtlS, 60, 365 * 86_400),
  PORTFOLIO_EXPORT_LINK_TTL_S: env.int(PORTFOLIO_DEFAULTS.exportLinkTtlS, 10, 7 * 86_400),
  PORTFOLIO_EXPORT_PDF_MAX_ROWS: env.int(PORTFOLIO_DEFAULTS.exportPdfMaxRows, 1, 1_000_000),
  // MCP connector and its OAuth server (docs/portfolio-scanner.md "MCP connector"): the address
  // clients reach this service at (OAuth issuer, metadata, consent redirects); behind a proxy, its
  // https address. The consent form is sealed with PORTFOLIO_EXPORT_SIGNING_SECRET (own label).
  PUBLIC_BASE_URL: env
    .url(['http:', 'https:'])
    .default(`http://127.0.0.1:${PORTFOLIO_DEFAULTS.port}`)
    .transform((v) => v.replace(/\/+$/, '')),
});
export type PortfolioConfig = z.infer<typeof portfolioConfigSchema>;

const exportSecretRule = unsafe.secret('HMAC key of export file links; the same on every API replica');

/** Settings refused when NODE_ENV=production. */
export const portfolioProductionRules: ProductionRules<PortfolioConfig> = {
  // Only the roles that serve HTTP sign links and seal consent forms: a worker is given no key.
  PORTFOLIO_EXPORT_SIGNING_SECRET: (value, config) => (config.PORTFOLIO_ROLE === 'worker' ? undefined : exportSecretRule(value, config)),
  PUBLIC_BASE_URL: unsafe.loopbackUrl(),
};
