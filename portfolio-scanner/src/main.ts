// The portfolio scanner process. PORTFOLIO_ROLE decides what runs: `api` (HTTP only; the portfolio
// API mounts here), `worker` (scan workers, the rescan planner, the registration-data runner and the
// export workers) or
// `both` (local use).
// docs/portfolio-scanner.md "Workers and planner".
import { resolverDependency } from '@dv/mailsec';
import { runService } from '@dv/runtime';
import { ApiLimits, mountPortfolioApi, type ApiContext } from './api/index.ts';
import { AuthMarks } from '@dv/accounts';
import { portfolioKeyAuthenticator, type PortfolioKeyAuthenticator } from './api/key-auth.ts';
import { backfillSpfStatus } from './api/summary.ts';
import { portfolioConfigSchema, portfolioProductionRules } from './config.ts';
import { PORTFOLIO_DEFAULTS } from './defaults.ts';
import { ExportWorker, exportSettings, resolveExportSecret } from './exports/index.ts';
import { openGeoFromConfig, type GeoReader } from './geo/index.ts';
import { connectorOAuth, mountPortfolioConnector } from './mcp/index.ts';
import { Planner } from './planner/index.ts';
import { createPoliteScanResolver, type ScanResolverHandle } from './politeness/index.ts';
import { RegistrationRunner, registrationDeps } from './registration/index.ts';
import { SharedDnsCache } from './scan/index.ts';
import { backfillAccountHistory, migrateGatewayValues } from './store/index.ts';
import { readQueueFigures, registerQueueGauges, requestScan, ScanWorker } from './worker/index.ts';

let worker: ScanWorker | undefined;
let planner: Planner | undefined;
let geo: GeoReader | undefined;
let dns: ScanResolverHandle | undefined;
let registration: RegistrationRunner | undefined;
let exportWorker: ExportWorker | undefined;
let keyAuth: PortfolioKeyAuthenticator | undefined;

await runService({
  name: 'portfolio-scanner',
  schema: portfolioConfigSchema,
  needs: { nats: true, redis: true, mongo: true },
  unsafeInProduction: portfolioProductionRules,
  routes: (app, { config, log, nats, redis, mongo }) => {
    // The REST API (docs/portfolio-scanner.md "API") on the roles that serve HTTP traffic.
    if (config.PORTFOLIO_ROLE === 'worker') return;
    const exportKey = resolveExportSecret(config.PORTFOLIO_EXPORT_SIGNING_SECRET, config.NODE_ENV);
    if ('error' in exportKey) throw new Error(exportKey.error);
    if (exportKey.warning) log.warn(exportKey.warning);
    // Once per database: the dashboard's SPF buckets for account domains stored before they existed.
    void backfillSpfStatus(mongo!.db)
      .then((n) => n > 0 && log.info({ domains: n }, 'spf_status backfilled'))
      .catch((err: Error) => log.warn({ err: err.message }, 'spf_status backfill failed; retried at the next start'));
    // Once per database: each account's own history of its names (docs/portfolio-scanner.md "Tenant history").
    void backfillAccountHistory(mongo!.db, config.PORTFOLIO_RESCAN_INTERVAL_S)
      .then((n) => n > 0 && log.info({ domains: n }, 'account domain history backfilled'))
      .catch((err: Error) => log.warn({ err: err.message }, 'account domain history backfill failed; retried at the next start'));
    // Keys remembered in process, believed while no revocation mark is newer (src/api/key-auth.ts).
    const marks = new AuthMarks(redis!.redis);
    keyAuth = portfolioKeyAuthenticator({ db: mongo!.db, redis: redis!.redis, log, marks, redisPrefix: config.REDIS_PREFIX });
    void keyAuth.start();
    const api: ApiContext = {
      db: mongo!.db,
      redis: redis!.redis,
      log,
      auth: keyAuth,
      marks,
      limits: new ApiLimits(redis!.redis, config.REDIS_PREFIX),
      intervalS: config.PORTFOLIO_RESCAN_INTERVAL_S,
      requestScan: async (domains) => {
        await requestScan(nats!.nc, domains, { intervalS: config.PORTFOLIO_RESCAN_INTERVAL_S });
      },
      lastUsedThrottleMs: PORTFOLIO_DEFAULTS.apiKeyLastUsedThrottleMs,
      exports: { secret: exportKey.secret, linkTtlS: config.PORTFOLIO_EXPORT_LINK_TTL_S },
      publicBaseUrl: config.PUBLIC_BASE_URL,
    };
    // The MCP connector and its OAuth server (src/mcp), before the API's 404 and error handler.
    const oauth = connectorOAuth({ db: mongo!.db, redis: redis!.redis, log, baseUrl: config.PUBLIC_BASE_URL, sealSecret: exportKey.secret, redisPrefix: config.REDIS_PREFIX });
    mountPortfolioConnector(app, api, oauth);
    mountPortfolioApi(app, api);
  },
  start: async ({ config, log, registry, nats, redis, mongo }) => {
    const nc = nats!.nc;
    const db = mongo!.db;
    // Every role reports the queue gauges (the same global figures): alerts aggregate with max().
    registerQueueGauges(registry, () => readQueueFigures(nc, db, config.PORTFOLIO_RESCAN_INTERVAL_S), PORTFOLIO_DEFAULTS.queueMetricsMaxAgeMs);
    // Once per database: gateway values stored before the vocabulary, in today's terms. Scans need
    // not wait for it: the store compares a legacy value in today's terms (withCurrentGateway).
    void migrateGatewayValues(db)
      .then((n) => n.corpus + n.accountDomains + n.changes > 0 && log.info(n, 'email_gateway values migrated'))
      .catch((err: Error) => log.warn({ err: err.message }, 'email_gateway migration failed; retried at the next start'));
    if (config.PORTFOLIO_ROLE === 'api') return;

    geo = await openGeoFromConfig(config, { registry, log });
    // DNS_SERVERS under the per-operator, per-resolver and per-worker budgets (src/politeness).
    dns = await createPoliteScanResolver(config, { registry, redis: redis!.redis, log });
    const shared = new SharedDnsCache({ maxEntries: PORTFOLIO_DEFAULTS.sharedDnsCacheMaxEntries, maxTtlS: PORTFOLIO_DEFAULTS.sharedDnsCacheMaxTtlS });
    worker = new ScanWorker({ nc, db, log, registry, config, scanDeps: { resolver: dns.resolver, geo, shared }, pullExpiresMs: PORTFOLIO_DEFAULTS.scanPullExpiresMs });
    await worker.start();
    planner = new Planner({ nc, db, redis: redis!.redis, log, config });
    planner.start();
    // Registration data on its own, slower schedule and per-RDAP-server budgets (src/registration).
    registration = new RegistrationRunner(db, registrationDeps(config, { resolver: dns.resolver, registry }), { log });
    registration.start();
    // Export workers (src/exports): claim queued exports from MongoDB and write them into GridFS.
    exportWorker = new ExportWorker(db, log, exportSettings(config));
    exportWorker.start();
    log.info({ role: config.PORTFOLIO_ROLE, concurrency: config.PORTFOLIO_SCAN_CONCURRENCY, rescanIntervalS: config.PORTFOLIO_RESCAN_INTERVAL_S }, 'scan workers and planner started');
  },
  // A DNS_SERVERS entry denying names that exist (or answering them all alike): /readyz names `resolver`.
  dependencies: () => [resolverDependency(() => dns?.sanities ?? [])],
  stop: async ({ config }) => {
    // Planner first (its lease passes on at once), then the scans in hand get most of the budget;
    // what is not finished by then is given back to the other replicas.
    await planner?.stop();
    await keyAuth?.stop();
    await Promise.all([worker?.stop(Math.floor(config.SHUTDOWN_TIMEOUT_MS * 0.6)), registration?.stop(), exportWorker?.stop()]);
    geo?.close();
    await dns?.close();
  },
});
