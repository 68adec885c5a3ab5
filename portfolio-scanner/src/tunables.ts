// The portfolio scanner's environment variables, one row each (name, validation with its default,
// unit, meaning): config.ts builds its schema from them and scripts/config-tables.ts prints the
// docs' tables from them. The defaults themselves, and why they are what they are, are in defaults.ts.
import { z } from 'zod';
import { env, tunables } from '@dv/runtime';
import { PORTFOLIO_DEFAULTS as D } from './defaults.ts';
import { geoPaths } from './geo/config.ts';
import { operatorOverrides, qps } from './politeness/config.ts';

export const PORTFOLIO_TUNABLES = tunables({
  DNS_SERVERS: { schema: env.hostPorts(), defaultText: "the system's resolvers", meaning: 'resolvers the scans ask (comma-separated `host[:port]`)' },
  RDAP_BOOTSTRAP_URL: { schema: env.url(['http:', 'https:']).optional(), defaultText: 'shipped IANA data', meaning: 'where RDAP base URLs come from' },
  // Geolocation (docs/portfolio-scanner.md "Geolocation").
  PORTFOLIO_GEO_CITY_MMDB: {
    schema: geoPaths(),
    defaultText: 'empty: the packaged country file',
    meaning: 'comma-separated location mmdb paths, tried in order; each must be a readable file at start',
  },
  PORTFOLIO_GEO_ASN_MMDB: {
    schema: geoPaths(),
    defaultText: 'empty: the ASN file built from `@ip-location-db/asn`',
    meaning: 'comma-separated ASN mmdb paths, tried in order; each must be a readable file at start',
  },
  PORTFOLIO_GEO_CACHE_DIR: { schema: z.string().default(D.geoCacheDir), defaultText: 'empty: `<tmpdir>/dv-portfolio-geo`', meaning: 'where the default ASN file is built' },
  PORTFOLIO_GEO_RELOAD_CHECK_INTERVAL_MS: { schema: env.int(D.geoReloadCheckIntervalMs, 100), meaning: "how often each file is stat'ed for a change" },
  // Politeness toward DNS (docs/portfolio-scanner.md "Politeness toward DNS").
  PORTFOLIO_DNS_OPERATOR_DEFAULT_QPS: { schema: qps(D.dnsOperatorDefaultQps), meaning: 'budget of an operator the table does not list' },
  PORTFOLIO_DNS_OPERATOR_QPS: {
    schema: operatorOverrides(),
    meaning: 'JSON overrides by table name or NS registrable domain: `{"Route 53": 1000, "example-dns.net": 10}`',
  },
  PORTFOLIO_DNS_RESOLVER_QPS: {
    schema: qps(D.dnsResolverQps),
    meaning:
      'budget of each `DNS_SERVERS` entry (Google Public DNS documents 1,500/s per client). A deployment that runs its own recursive resolvers sets it to what they carry: the default protects a public resolver and caps a deployment at ~55 rescans/s per entry (17-18 queries each); the benchmark sets it to its resolver\'s measured ceiling',
  },
  PORTFOLIO_DNS_WORKER_QPS: { schema: qps(D.dnsWorkerQps), meaning: 'all queries of one process' },
  PORTFOLIO_DNS_BUDGET_MAX_WAIT_MS: { schema: env.int(D.dnsBudgetMaxWaitMs, 10, 600_000), meaning: 'longest wait for the budgets before `TIMEOUT`' },
  PORTFOLIO_BUDGETS_SHARED: { schema: env.bool(true), meaning: 'divide the operator, resolver and RDAP budgets by the live worker replicas (Redis heartbeat)' },
  // Registration data (docs/portfolio-scanner.md "Registration data").
  PORTFOLIO_RDAP_SERVER_QPS: { schema: qps(D.rdapServerQps), meaning: 'requests to one RDAP server, divided by the live replicas' },
  PORTFOLIO_WHOIS_REFRESH_INTERVAL_S: { schema: env.int(D.whoisRefreshIntervalS, 60), meaning: 'registration data is refreshed this often' },
  PORTFOLIO_WHOIS_NEAR_EXPIRY_DAYS: { schema: env.int(D.whoisNearExpiryDays, 0, 365), meaning: 'expiry this close (or past) switches to the near-expiry interval' },
  PORTFOLIO_WHOIS_NEAR_EXPIRY_INTERVAL_S: { schema: env.int(D.whoisNearExpiryIntervalS, 60), meaning: 'refresh interval near expiry (renewals show up quickly)' },
  // Process roles, workers and the rescan planner (docs/portfolio-scanner.md "Workers and planner").
  PORTFOLIO_ROLE: {
    schema: z.enum(['api', 'worker', 'both']).default(D.role),
    meaning: '`api`, `worker` (scan workers and rescan planner) or `both`; deployments run `api` and `worker` apart so they scale apart',
  },
  REDIS_PREFIX: {
    schema: z.string().regex(/^[A-Za-z0-9_:.-]{1,64}$/, 'must be 1-64 letters, digits, _ : . or -').default(D.redisPrefix),
    meaning: "prefix of the scanner's Redis keys (lease, budget heartbeat, API limits, OAuth per-address metering)",
  },
  DNS_TIMEOUT_MS: { schema: env.int(D.dnsTimeoutMs, 100, 30_000), meaning: 'per query; a timeout is an unconfirmed field, never a change' },
  DNS_RETRIES: { schema: env.int(D.dnsRetries, 0, 5), unit: 'attempts', meaning: 'extra attempts of a query' },
  DNS_CANARIES: {
    schema: env.domainList(D.dnsCanaries),
    meaning:
      'names that certainly exist, asked of each `DNS_SERVERS` entry; while one denies them (or answers them all with one address) its NXDOMAINs (or all its answers) are failed lookups, so scan fields stay unconfirmed and no change is recorded; `/readyz` names `resolver` (docs/mailsec.md "Resolver sanity"); empty: no check',
  },
  DNS_CANARY_INTERVAL_MS: { schema: env.int(D.dnsCanaryIntervalMs, 100, 3_600_000), meaning: 'how often the canaries are asked while the resolver is believed' },
  DNS_CANARY_UNRELIABLE_INTERVAL_MS: { schema: env.int(D.dnsCanaryUnreliableIntervalMs, 100, 3_600_000), meaning: 'how often the canaries are asked while the resolver is not believed' },
  PORTFOLIO_RESCAN_INTERVAL_S: { schema: env.int(D.rescanIntervalS, 10, 365 * 86_400), meaning: 'seconds between two scans of a monitored domain' },
  PORTFOLIO_SCAN_CONCURRENCY: { schema: env.int(D.scanConcurrency, 1, 1_000), unit: 'scans', meaning: 'scans one process runs at once' },
  PORTFOLIO_SCAN_PRIORITY_RESERVE: { schema: env.int(D.scanPriorityReserve, 0, 1_000), unit: 'scans', meaning: 'places only priority scans may take (capped at concurrency - 1)' },
  PORTFOLIO_SCAN_RETRY_BASE_MS: { schema: env.int(D.scanRetryBaseMs, 10, 3_600_000), meaning: 'backoff of a failed scan: first delay, doubled per delivery' },
  PORTFOLIO_SCAN_RETRY_MAX_MS: { schema: env.int(D.scanRetryMaxMs, 10, 86_400_000), meaning: 'cap of that backoff' },
  PORTFOLIO_FULL_DKIM_SWEEP_INTERVAL_S: { schema: env.int(D.fullDkimSweepIntervalS, 60, 365 * 86_400), meaning: 'seconds between two full DKIM selector sweeps of a domain' },
  PORTFOLIO_PLAN_TICK_MS: { schema: env.int(D.planTickMs, 100, 600_000), meaning: 'planner tick' },
  PORTFOLIO_PLAN_BATCH: { schema: env.int(D.planBatch, 1, 100_000), unit: 'domains', meaning: 'due domains published per tick at most' },
  PORTFOLIO_PLAN_DELAY_MS: { schema: env.int(D.planDelayMs, 0, 600_000), meaning: "head start of the API's priority request over the planner" },
  PORTFOLIO_PLAN_GRACE_S: { schema: env.int(D.planGraceS, 1, 7 * 86_400), meaning: 'wait before checking a published message is still queued (capped at half the interval)' },
  PORTFOLIO_PLANNER_LEASE_MS: { schema: env.int(D.plannerLeaseMs, 300, 600_000), meaning: 'planner lease; a dead holder is replaced after at most this long' },
  // Exports (docs/portfolio-scanner.md "Exports").
  PORTFOLIO_EXPORT_SIGNING_SECRET: {
    schema: z.string().min(32, 'must be at least 32 characters').optional(),
    defaultText: '`npm start`: a key file kept in the stack folder; unset: random per process; required in production (roles `api` and `both`)',
    meaning: 'HMAC key of export file links and sealed MCP consent forms (or `_FILE`); the same on every API replica',
  },
  PORTFOLIO_EXPORT_CONCURRENCY: { schema: env.int(D.exportConcurrency, 0, 64), unit: 'exports', meaning: 'exports one worker process writes at once (0: none)' },
  PORTFOLIO_EXPORT_TTL_S: { schema: env.int(D.exportTtlS, 60, 365 * 86_400), meaning: 'finished exports and their files are deleted this long after' },
  PORTFOLIO_EXPORT_LINK_TTL_S: { schema: env.int(D.exportLinkTtlS, 10, 7 * 86_400), meaning: 'life of a signed file link from the moment the list shows it' },
  PORTFOLIO_EXPORT_PDF_MAX_ROWS: { schema: env.int(D.exportPdfMaxRows, 1, 1_000_000), unit: 'rows', meaning: 'domains listed in a pdf report at most' },
  // MCP connector and its OAuth server (docs/portfolio-scanner.md "MCP connector").
  PUBLIC_BASE_URL: {
    schema: env
      .url(['http:', 'https:'])
      .default(`http://127.0.0.1:${D.port}`)
      .transform((v) => v.replace(/\/+$/, '')),
    meaning: 'the address clients reach the API at: OAuth issuer and endpoints of the MCP connector, every link the API answers; refused on loopback in production',
  },
});
