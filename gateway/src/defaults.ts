// Every tunable of the gateway with its default; config.ts reads the ones that vary per
// deployment from the environment. Units are in the names.
export const GATEWAY_DEFAULTS = {
  /** HTTP port (the stack's fixed port plan: gateway 8080, lookup 8081, portfolio 8082). */
  port: 8080,
  /** Base of links we hand out (status_url, results_url, signed downloads). */
  publicBaseUrl: 'http://127.0.0.1:8080',
  /** Where plan_not_entitled sends people when UPGRADE_URL is unset: the console's plan page, under PUBLIC_BASE_URL. */
  upgradePath: '/app/plan',
  /** Redis key prefix: lets tests and several deployments share one Redis. */
  redisKeyPrefix: 'gw:',

  /** Spec: wait on POST /v1/verify is 0-55 s, default 25. */
  verifyWaitDefaultSeconds: 25,
  maxWaitSeconds: 55,
  /** Spec: Idempotency window 24 h. */
  idempotencyTtlSeconds: 24 * 60 * 60,
  /** A pending idempotency record outlives the longest request (55 s wait + upload), then lapses so a crashed replica never blocks a key forever. */
  idempotencyPendingTtlSeconds: 180,
  /** How often a concurrent duplicate looks whether the first request has finished. */
  idempotencyPollMs: 40,

  /** last_used_at is written at most this often per key: a write per request would double the load on MongoDB. */
  lastUsedThrottleMs: 60_000,
  /** Authenticated keys are remembered this long in-process; a change stream on api_keys/accounts drops entries at once on revocation or plan change. */
  authCacheTtlMs: 30_000,
  /**
   * Abuse before authentication, per client address (req.ip) and minute: every lookup of a
   * credential in MongoDB (a key not remembered above, an OAuth token request, a consent form)
   * costs a point, a failed one `authFailurePoints` in all. A remembered key costs nothing, so a
   * customer behind one NAT meets its own per-account limit first; 2,400 lookups or 120 failures
   * a minute per address is far above what real clients need. 0 turns the limiter off.
   */
  authAttemptsPerIpPerMinute: 2_400,
  authFailurePoints: 20,
  /** Unknown (or revoked) key prefixes are remembered this long per process, so repeating one costs no MongoDB read; a key created meanwhile is dropped from it by the change stream at once. */
  authNegativeCacheTtlMs: 5_000,
  authNegativeCacheMaxEntries: 50_000,

  /** In-flight slots older than this are forgotten (a single check ends within ~2 h: greylist ladder). */
  inFlightSlotMaxAgeSeconds: 3 * 60 * 60,

  /** Job items per insertMany; each batch is published (acks pipelined) once stored. */
  itemInsertBatch: 2_000,
  /** Batches in flight at once: MongoDB inserts of one overlap JetStream acks of another. */
  batchConcurrency: 3,
  /**
   * A list job is answered (202) once its items and its charge are stored; its messages are then
   * published after the answer, by at most this many jobs at once per process (a further job
   * publishes before its answer, which bounds the lists held in memory). A gateway that dies
   * part-way leaves the rest to the scheduler's sweep (UNPUBLISHED_AFTER_MS). Publishing 25,000
   * messages was a quarter of a 25,000-address job's answer time.
   */
  backgroundPublishMaxJobs: 4,
  /**
   * An item message whose ack does not come is published again (the item id as message id makes
   * that safe): this many tries, the second after this delay, doubled after each, and none begun
   * this long after the first (an ack timeout is 5 s, so a dead NATS fails a request in ~10 s).
   */
  publishAttempts: 3,
  publishRetryBaseMs: 200,
  publishRetryWindowMs: 8_000,
  /**
   * Group commit of sandbox single checks (the API's hottest write): documents of requests that
   * arrive while a write is in flight go together in the next one, up to this many, with this
   * many writes in flight. Alone, a request's write goes out at once (no added latency).
   */
  singleWriteBatchMax: 256,
  /**
   * One write in flight: the next group waits and grows instead of running beside it. Measured
   * with the bench's MongoDB (under wine, where concurrent operations cost far more CPU): 1 gave
   * 1,573-1,790 sandbox checks/s and p99 29-39 ms at half rate in three runs, 2 gave 1,135-1,234
   * and 33-84 ms in four (docs/gateway.md, "Hot paths").
   */
  singleWriteInFlight: 1,
  /** The same for GET /v1/lookup's reads: lookups answered by one query, queries in flight (1: 8,453-9,547 req/s against 5,797-7,833 with 2). */
  lookupReadBatchMax: 256,
  lookupReadInFlight: 1,

  /** Rejected rows listed in a job creation response; the rest are only counted (a 50 MB file can hold a million bad rows). */
  invalidListedMax: 1_000,
  /** Spec: upload size 50 MB per file. */
  uploadMaxBytes: 50 * 1024 * 1024,
  /** Meta carried per item: other CSV columns / JSON meta. Bounded so a job's items stay small. */
  metaMaxKeys: 50,
  metaMaxValueChars: 1_000,
  /** JSON request bodies (express.json in @dv/runtime). Larger lists go as a multipart upload. */
  jsonBodyMaxBytes: 1_000_000,

  /** Signed CSV links (GET /v1/downloads/{job_id}.csv) stay valid this long. */
  downloadLinkTtlSeconds: 7 * 24 * 60 * 60,

  /** Load figures older than this are ignored (the scheduler writes them every second; KV TTL 60 s). */
  loadStaleAfterMs: 15_000,
  /** Load figures are re-read at most this often per process. */
  loadRefreshMs: 1_000,
  /** Fallbacks when no scheduler has published load figures. */
  fallbackSecondsPerSingle: 8,
  fallbackSecondsPer1000: 600,
  /** Retry-After on a 202 from POST /v1/verify, floor and ceiling. */
  retryAfterMinSeconds: 2,
  retryAfterMaxSeconds: 60,

  /** MCP (/mcp): a tool answers within about 25 s, so it waits for results at most this long. */
  mcpWaitSeconds: 20,
  /** Spec: MCP inline list, addresses per verify_emails call. */
  mcpInlineMax: 100,
  /** Spec: MCP get_job_results page size. */
  mcpResultsMax: 200,
  /** verify_list_from_url: connect + response headers deadline, and the whole download + parse. */
  mcpListConnectTimeoutMs: 10_000,
  mcpListDeadlineMs: 20_000,
  /** verify_list_from_url downloads at once per account (each up to 50 MB, on top of the job slot each one holds). */
  mcpListFetchesPerAccount: 2,
  /** OAuth (docs/oauth.md). Authorization codes are single-use and short-lived (RFC 6749 §4.1.2 advises at most 10 min). */
  oauthCodeTtlSeconds: 60,
  /** Access tokens: an hour, then the client refreshes (which re-checks the key). */
  oauthAccessTokenTtlSeconds: 60 * 60,
  /** Refresh tokens rotate on every use; an unused one lapses after 30 days. */
  oauthRefreshTokenTtlSeconds: 30 * 24 * 60 * 60,
  /** A registered client nobody has used for 90 days is forgotten (registration is open, so this bounds the collection). */
  oauthClientUnusedTtlSeconds: 90 * 24 * 60 * 60,
  /** Client secrets do not expire on their own (0, RFC 7591); unused clients lapse instead. */
  oauthClientSecretTtlSeconds: 0,
  /** The consent page must be submitted within this window. */
  oauthConsentTtlSeconds: 10 * 60,
  /** Redirect URIs one client may register. */
  oauthMaxRedirectUris: 10,
  /** Dynamic registrations per client IP per hour (in-process limit of the MCP SDK's handler). */
  oauthRegistrationsPerHour: 20,

  /** The console (/app/): a session unused this long ends; a working day of idle tabs survives, a forgotten laptop does not. */
  consoleSessionIdleMinutes: 12 * 60,
  /** However busy, a session ends this long after sign-in and the person signs in again. */
  consoleSessionMaxDays: 14,
  /** A sign-in link works once, for this long: long enough to switch to the mail app and back. */
  signInLinkTtlMinutes: 20,
  /** Sign-in links mailed per address per UTC day: enough for a person on several devices, too few to flood an inbox. */
  signInLinksPerEmailPerDay: 10,
  /** Sign-in links asked for from one client address per UTC day (an office behind one NAT included). */
  signInLinksPerIpPerDay: 100,
  /** Form bodies (everything but the upload) are small; this refuses a large one before parsing it. */
  consoleFormMaxBytes: 64 * 1024,
  /** A console upload waits this long in Redis for its confirm step: time to look at the preview, not to leave it there. */
  consoleUploadTtlSeconds: 30 * 60,
  /** Pending console uploads per person (each up to uploadMaxBytes in Redis); a new one drops the oldest. */
  consoleUploadsPerPerson: 2,
  /** The check page waits this long for a result before showing "still running" (a person waits; a browser's own timeout is far longer). */
  consoleCheckWaitSeconds: 20,
  /** How often an open page's live region asks for news: a finished check shows within this. */
  consoleLiveIntervalMs: 2_000,
  /** The same for the lists and a list's page: progress of a list is worth a look every few seconds, not more (1,000 open pages ask 333 times a second). */
  consoleListLiveIntervalMs: 3_000,
  /**
   * The console's per-request reads (the viewer's memberships, a live refresh's job) go in groups:
   * reads arriving while one is in flight share the next round trip, up to this many, with this
   * many round trips of a kind in flight (as the API's lookups: lookupReadBatchMax).
   */
  consoleReadBatchMax: 256,
  consoleReadInFlight: 2,
  /** The account page's 30-day chart (an aggregation over the month's jobs) is kept this long per account: it is drawn by day. */
  consoleUsageChartTtlMs: 60_000,
} as const;
