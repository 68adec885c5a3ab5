// Every tunable of the portfolio scanner with its default; config.ts reads them from the environment.
import { RESOLVER_SANITY_DEFAULTS } from '@dv/mailsec';
export const PORTFOLIO_DEFAULTS = {
  /** HTTP port (the stack's fixed port plan: gateway 8080, lookup 8081, portfolio 8082). */
  port: 8082,
  // Geolocation and ASN (src/geo). Empty path lists mean the files shipped in npm data packages.
  /** Country-level default: @ip-location-db/geo-whois-asn-country-mmdb (IPv4+IPv6, ~8 MB; a city
   * database is 45-135 MB on disk and as much in memory, too much beside the 300 MB budget). */
  geoCityMmdbDefault: '@ip-location-db/geo-whois-asn-country-mmdb/geo-whois-asn-country.mmdb',
  /** Where the default ASN mmdb (built once from the @ip-location-db/asn CSV, ~15 MB) is kept;
   * empty means <os tmpdir>/dv-portfolio-geo. */
  geoCacheDir: '',
  /** How often the database files are stat'ed; a changed file is reopened and swapped in. */
  geoReloadCheckIntervalMs: 60_000,
  // One scan of one domain (src/scan).
  /** MX hosts (in preference order) whose addresses are looked up for mx_server_*. */
  scanMxHostsChecked: 3,
  /** A/AAAA addresses (in address order) whose PTR names make the ptr field. */
  scanPtrAddresses: 4,
  /** DKIM selector queries of one scan in flight at once. */
  scanDkimConcurrency: 16,
  /** Names kept by the shared cache of vendor answers (SPF include trees, MX hosts). */
  sharedDnsCacheMaxEntries: 50_000,
  /** Longest a shared answer is kept, whatever its TTL. */
  sharedDnsCacheMaxTtlS: 3600,
  // Politeness toward DNS (src/politeness). Budgets are queries per second.
  /** Budget of an authoritative-server operator the table does not list: small hosts, so kept low. */
  dnsOperatorDefaultQps: 50,
  /** Budget per configured resolver (each DNS_SERVERS entry): public resolvers throttle a client
   * (Google Public DNS documents 1,500 queries/s per client address). */
  dnsResolverQps: 1000,
  /** Budget of one worker process over all its queries (CPU and sockets, not politeness). */
  dnsWorkerQps: 5000,
  /** Queries on the wire at once per DNS_SERVERS entry (mailsec's resolver default is 64). The budgets
   * set the pace; at 64, a 20 ms round trip caps a worker at 3,200 queries/s (~190 rescans/s) whatever
   * the budgets allow. */
  dnsUpstreamMaxOutstanding: 1024,
  /** A query that would wait longer than this for its budgets fails as TIMEOUT (unconfirmed). */
  dnsBudgetMaxWaitMs: 10_000,
  /** Every budget is a window: at most floor(qps) queries in any 1 s plus this margin, each dated by
   * when it ended (answer or timeout) and counted as in flight until then (politeness/budget.ts),
   * so a worker stalled between a grant and its socket cannot crowd a second at the server. The
   * margin only covers timer granularity; it was 250 ms while queries were dated by their grant. */
  dnsBudgetWindowMarginMs: 25,
  /** Answers kept by the politeness layer, so a repeated question is neither asked nor charged. A
   * busy worker stores ~4,000 answers a second, so what lasts here is what many scans share (vendor
   * names, PTRs, name servers: re-read, so never the least recent) and a scan's own repeats
   * (within its half second); 20,000 held seconds of one-domain answers nobody asks again (memory:
   * the 100,000-domain bench's workers peaked at 297-317 MB against 300). */
  dnsAnswerCacheMaxEntries: 10_000,
  /** Longest an answer is kept there, whatever its TTL. */
  dnsAnswerCacheMaxTtlS: 300,
  /** Zones whose operator (from their NS) is remembered, least recently used out first. A domain's
   * zone is needed while its scan runs (a rescan names it again from the stored NS); what stays is
   * what many scans share (vendor zones, reverse zones). At 100,000 it held every domain of a
   * 100,000-domain portfolio for a day, ~20 MB of each worker's memory. */
  dnsZoneCacheMaxEntries: 10_000,
  /** Longest a zone's operator is remembered, whatever the NS TTL. */
  dnsZoneCacheMaxTtlS: 86_400,
  /** How long a zone whose NS lookup failed is charged to its own default budget before asking again. */
  dnsZoneFailureTtlS: 60,
  /** Worker heartbeat in Redis: budgets shared by the replicas are divided by the live count. */
  dnsWorkerHeartbeatMs: 5000,
  /** A replica joining others sends no query for a heartbeat plus this long: until the others have
   * beaten, seen it and halved their shares, its share would come on top of theirs. */
  dnsJoinHoldMarginMs: 1_000,
  /** A replica not heard from for this long no longer counts. */
  dnsWorkerHeartbeatTtlMs: 15_000,
  // Registration data (src/registration).
  /** Requests per second to one RDAP server (RDAP servers rate-limit hard). */
  rdapServerQps: 1,
  /** Longest a lookup waits for its RDAP server's budget; beyond it the domain is put off until then. */
  rdapMaxWaitMs: 30_000,
  /** Back-off after a 429 without Retry-After. */
  rdapDefaultBackoffS: 60,
  /** Longest back-off honoured from a Retry-After header (a broken header must not park a server for days). */
  rdapMaxBackoffS: 3600,
  /** Registration data is refreshed this often (every 7 days: it rarely changes)... */
  whoisRefreshIntervalS: 7 * 86_400,
  /** ...and this often once the expiry date is within whoisNearExpiryDays (renewals show up quickly). */
  whoisNearExpiryIntervalS: 86_400,
  whoisNearExpiryDays: 30,
  /** When no source answered (or the server is backing off), ask again after this long. */
  whoisFailureRetryS: 6 * 3600,
  /** Registration lookups of one runner in flight at once (the per-server budgets set the pace). */
  whoisConcurrency: 8,
  /** How often the runner looks for due registrations when it found none. */
  whoisIdlePollMs: 30_000,
  // Process roles, workers and the rescan planner (src/worker, src/planner;
  // docs/portfolio-scanner.md "Workers and planner").
  /** PORTFOLIO_ROLE: `both` locally; deployments run `api` and `worker` apart so they scale apart. */
  role: 'both',
  /** Prefix of the scanner's Redis keys (the planner lease); replicas of one deployment share it. */
  redisPrefix: 'dv:portfolio:',
  /** Resolver timeout per query and extra attempts (a timeout is an unconfirmed field, never a change). */
  dnsTimeoutMs: 2_000,
  dnsRetries: 1,
  /**
   * DNS_CANARIES: names that certainly exist, asked of each DNS_SERVERS entry to judge whether it
   * can be believed (@dv/mailsec resolver sanity). While one denies them (or answers them all
   * alike) its NXDOMAINs (or all its answers) are failed lookups: unconfirmed fields, never a
   * record gone. Empty turns the check off; the simulated world sets its own.
   */
  dnsCanaries: RESOLVER_SANITY_DEFAULTS.canaries,
  /** DNS_CANARY_INTERVAL_MS / DNS_CANARY_UNRELIABLE_INTERVAL_MS: how often the canaries are asked while the resolver is believed / not. */
  dnsCanaryIntervalMs: RESOLVER_SANITY_DEFAULTS.intervalMs,
  dnsCanaryUnreliableIntervalMs: RESOLVER_SANITY_DEFAULTS.unreliableIntervalMs,
  /** Seconds between two scans of a monitored domain (24 h: the daily rescan customers are promised). */
  rescanIntervalS: 86_400,
  /** Scans one worker process runs at once (each is ~20-330 DNS queries, mostly waiting). */
  scanConcurrency: 16,
  /** Of those, places only priority scans (domains just added) may take, so they never wait behind rescans. */
  scanPriorityReserve: 1,
  /** Longest a pull request waits for messages before it is renewed (nats.js minimum 1000). */
  scanPullExpiresMs: 1_000,
  /** Scans stored in one transaction at most (storeScans): a worker under load groups what finished
   * while the previous store ran; a quiet one stores each scan alone, at once. */
  storeBatchMax: 100,
  /** Store transactions of one worker running at once (more groups, smaller, when MongoDB is fast). */
  storeBatchesInFlight: 2,
  /** A store group waits this long after its first scan for others to join (none once storeBatchMax wait):
   * a transaction is four MongoDB commands whatever it holds, each costing the worker CPU, and a
   * worker's scans finish tens of milliseconds apart; only the ack waits, the scan place is free.
   * 100 ms: ~25 scans a group at 250 rescans/s per worker, half the commands of 50 ms. */
  storeBatchLingerMs: 100,
  /** The same for the reads of the corpus documents of scans about to start (one command a group);
   * a scan waits this long at most before its DNS work. */
  scanReadLingerMs: 10,
  /** Backoff of a failed scan: first delay, doubled per delivery, capped. */
  scanRetryBaseMs: 5_000,
  scanRetryMaxMs: 300_000,
  /** Seconds between two full DKIM selector sweeps of a domain (weekly: ~220 queries each; the first scan sweeps too). */
  fullDkimSweepIntervalS: 604_800,
  /** Milliseconds between two planner ticks (the lease holder's query for due domains). */
  planTickMs: 2_000,
  /** Due domains one tick publishes at most (a backlog is worked off over ticks, oldest first). */
  planBatch: 2_000,
  /** A domain due less than this long ago is left to the priority request the API sent when it was added. */
  planDelayMs: 3_000,
  /**
   * A due time more than an interval plus this away was planned under a longer
   * PORTFOLIO_RESCAN_INTERVAL_S: the planner moves it within the current one. The margin leaves
   * alone what a replica with a clock a little ahead stored.
   */
  planPullInMarginMs: 60_000,
  /** Seconds after publishing before the planner checks the message is still queued, and republishes it if not (capped at half the interval). */
  planGraceS: 600,
  /** Planner lease in Redis; renewed at a third of it. A dead holder's lease passes on after this long. */
  plannerLeaseMs: 15_000,
  /** Queue lag and overdue gauges are recomputed at a scrape at most this often (one count query, two message reads). */
  queueMetricsMaxAgeMs: 5_000,
  // Portfolio API (src/api).
  /** A key's last_used_at is written at most this often per process (a write per call otherwise). */
  apiKeyLastUsedThrottleMs: 60_000,
  /**
   * An authenticated key is remembered this long at most. Every call checks the key's and its
   * account's revocation marks in Redis (written by whatever revokes, deactivates or changes the
   * plan, before it answers), so a revocation holds at once; a change stream drops entries too.
   */
  apiKeyCacheTtlMs: 60_000,
  /**
   * Abuse before authentication, per client address (req.ip) and minute: every lookup of a key in
   * MongoDB (one not remembered above) costs a point, a failed one `apiAuthFailurePoints` in all;
   * a remembered key costs nothing, so a client with a good key is limited far later than one
   * guessing keys. 0 turns the limit off.
   */
  apiAuthAttemptsPerIpPerMinute: 2_400,
  apiAuthFailurePoints: 20,
  /** An unknown or revoked key (by its hash) is remembered this long per process, so repeating it costs no MongoDB read. */
  apiAuthNegativeCacheTtlMs: 5_000,
  apiAuthNegativeCacheMaxEntries: 50_000,
  /** The dashboard summary snapshot is recomputed in the background once older than this (scans show within it; API writes at once). */
  summaryMaxAgeMs: 30_000,
  /** Strict-Transport-Security max-age on HTTPS answers (one year; no includeSubDomains: other hosts
   * under the operator's domain are not ours to pin). */
  apiHstsMaxAgeS: 31_536_000,
  // Exports (src/exports; docs/portfolio-scanner.md "Exports").
  /** Exports one worker process writes at once (each is one cursor and one GridFS upload). */
  exportConcurrency: 2,
  /** How often an idle export loop looks for a queued export. */
  exportPollMs: 1_000,
  /** A worker's hold on an export, renewed at a third of it while writing; a dead worker's export is taken over after this. */
  exportLeaseMs: 30_000,
  /** Claims of one export at most (crashed workers); then it ends `failed` with the reason. */
  exportMaxAttempts: 3,
  /** Rows read, formatted and written per step (the cursor's batch size): memory per export is a few of these. */
  exportBatchRows: 1_000,
  /**
   * csv batches handed to the file store before the writer waits for the oldest: GridFS inserts
   * its chunks one at a time, and with one batch ahead the reads stalled behind every chunk insert
   * (a 100,000-row export took read time plus write time). ~150 KB each at the default columns.
   */
  exportWriteAheadBatches: 8,
  /** GridFS chunk size: fewer, larger chunks write faster; 1 MiB stays far below the 16 MB document limit. */
  exportChunkBytes: 1_048_576,
  /** Completed and failed exports (record and file) are kept this long. */
  exportTtlS: 7 * 86_400,
  /** A signed file link is valid this long from the moment the list shows it (at most until the file expires). */
  exportLinkTtlS: 3_600,
  /** Domains listed in a pdf report at most (the csv and zip exports have them all). */
  exportPdfMaxRows: 10_000,
  /** How often a worker fails abandoned exports and deletes expired ones. */
  exportSweepIntervalMs: 60_000,
  // MCP connector and its OAuth (src/mcp; docs/portfolio-scanner.md "MCP connector").
  /** Domains one list_domains call returns at most (an agent's context is small; page with offset). */
  mcpListMax: 500,
  /** Domains the portfolio://domains resource lists (the first by id; list_domains pages through the rest). */
  mcpResourceDomainsMax: 1_000,
  /** Changes one get_change_history call returns at most. */
  mcpChangesMax: 200,
  /** OAuth: authorization codes are single-use and short-lived (RFC 6749 §4.1.2 advises at most 10 min). */
  oauthCodeTtlS: 60,
  oauthAccessTokenTtlS: 60 * 60,
  /** Refresh tokens rotate on use; an unused one lapses after this. */
  oauthRefreshTokenTtlS: 30 * 86_400,
  /** A registered client not used for this long lapses. */
  oauthClientUnusedTtlS: 90 * 86_400,
  /** How long a consent page may be submitted. */
  oauthConsentTtlS: 10 * 60,
  oauthMaxRedirectUris: 10,
  /** Dynamic client registrations per client address per hour. */
  oauthRegistrationsPerHour: 20,
  /** Consent-form and token-endpoint credential lookups per client address per minute (a wrong key or grant costs oauthFailurePoints). */
  oauthAttemptsPerIpPerMinute: 60,
  oauthFailurePoints: 5,
} as const;
