// Every MongoDB collection and index of the platform, declared once. `ensureCollections` in
// @dv/runtime applies them idempotently at start. Retained data carries a TTL index on
// `expires_at` so MongoDB removes it after the retention window on its own.

export const RETENTION_DAYS = 30;

export interface IndexDef {
  key: Record<string, 1 | -1>;
  name: string;
  unique?: boolean;
  /** TTL: documents expire this many seconds after the indexed date (0 = at the date itself). */
  expireAfterSeconds?: number;
  partialFilterExpression?: Record<string, unknown>;
}

export interface CollectionDef {
  name: string;
  indexes: IndexDef[];
  /** Indexes earlier versions declared: dropped at start where they still exist. */
  dropped?: string[];
}

const expiresAt: IndexDef = { key: { expires_at: 1 }, name: 'ttl_expires_at', expireAfterSeconds: 0 };

export const COLLECTIONS = {
  accounts: { name: 'accounts', indexes: [{ key: { email: 1 }, name: 'email', unique: true }] },
  apiKeys: {
    name: 'api_keys',
    indexes: [
      { key: { prefix: 1 }, name: 'prefix', unique: true },
      { key: { account_id: 1, created_at: -1 }, name: 'account_created' },
    ],
  },
  creditLedger: {
    name: 'credit_ledger',
    // _id is the idempotency id of the movement (e.g. `charge:<jobId>`): a replayed movement is a
    // duplicate-key error, never a second charge.
    indexes: [{ key: { account_id: 1, at: -1 }, name: 'account_at' }],
  },
  jobs: {
    name: 'jobs',
    indexes: [
      { key: { account_id: 1, _id: -1 }, name: 'account_jobs' },
      { key: { account_id: 1, status: 1 }, name: 'account_status' },
      // The scheduler's deadline sweep: running jobs whose max_wall_seconds has passed.
      { key: { status: 1, deadline_at: 1 }, name: 'status_deadline' },
      // @dv/notify (docs/notify.md): webhook deliveries and completion emails due for a try
      // (next_attempt_at is a date only while one is scheduled or leased), and completed jobs whose
      // webhook or email was never tried (attempts 0 / no notify state yet).
      { key: { 'webhook.next_attempt_at': 1 }, name: 'webhook_due', partialFilterExpression: { 'webhook.next_attempt_at': { $type: 'date' } } },
      { key: { status: 1, 'webhook.attempts': 1 }, name: 'webhook_untried', partialFilterExpression: { 'webhook.url': { $type: 'string' } } },
      { key: { 'notify.next_attempt_at': 1 }, name: 'notify_due', partialFilterExpression: { 'notify.next_attempt_at': { $type: 'date' } } },
      { key: { status: 1, 'notify.attempts': 1 }, name: 'notify_untried', partialFilterExpression: { notify_email: true } },
      // Jobs whose deadline sweep started but has not finished (a replica died part-way).
      { key: { deadline_settled: 1 }, name: 'deadline_unsettled', partialFilterExpression: { deadline_settled: false } },
      // Jobs whose messages may not all have gone out (JobDoc.unpublished): the scheduler's sweep.
      { key: { 'unpublished.at': 1 }, name: 'unpublished_due', partialFilterExpression: { 'unpublished.at': { $type: 'date' } } },
      // One job per (account, Idempotency-Key): a retry of a failed request finds the job it paid for.
      { key: { account_id: 1, idem_key: 1 }, name: 'account_idem_key', unique: true, partialFilterExpression: { idem_key: { $type: 'string' } } },
      expiresAt,
    ],
  },
  jobItems: {
    name: 'job_items',
    // Every item is inserted once and stored once, so each index here is paid on the API's and the
    // scheduler's hottest writes: only what a query needs. Until 2026-11-22 the items also had a
    // unique (job_id, email) index that no query used (the gateway removes duplicates before
    // inserting), an index on (state, next_attempt_at) holding every item rather than only the
    // parked ones, and a partial index for per-item `published` flags (now JobDoc.unpublished):
    // without them a 25,000-item insert costs MongoDB about a third less (docs/data-model.md).
    indexes: [
      { key: { job_id: 1, seq: 1 }, name: 'job_seq', unique: true },
      // The greylist ladder's durable wait: parked items due for another attempt.
      { key: { state: 1, next_attempt_at: 1 }, name: 'retry_due', partialFilterExpression: { state: 'waiting_retry' } },
      expiresAt,
    ],
    dropped: ['unpublished', 'job_email', 'state_due'],
  },
  // Both keyed by `_id` (latestResultId, cacheId in jobs.ts); their unique secondary indexes of
  // earlier versions made every per-item upsert about three times dearer.
  latestResults: { name: 'latest_results', indexes: [expiresAt], dropped: ['account_email'] },
  verificationCache: { name: 'verification_cache', indexes: [expiresAt], dropped: ['email'] },
  events: {
    name: 'events',
    indexes: [{ key: { account_id: 1, seq: 1 }, name: 'account_seq', unique: true }, { key: { job_id: 1 }, name: 'job', unique: true }, expiresAt],
  },
  counters: { name: 'counters', indexes: [] },
  // OAuth for connector clients (docs/oauth.md). Secrets, codes and tokens are stored as SHA-256
  // hashes (the _id), never in clear. Unused clients lapse after their expires_at (bumped on use).
  oauthClients: { name: 'oauth_clients', indexes: [expiresAt] },
  // Codes are kept (marked used) until they expire so a replayed code is recognised and its grant revoked.
  oauthCodes: { name: 'oauth_codes', indexes: [expiresAt] },
  oauthTokens: {
    name: 'oauth_tokens',
    indexes: [
      { key: { grant_id: 1 }, name: 'grant' },
      { key: { key_id: 1 }, name: 'key' },
      expiresAt,
    ],
  },
  portfolioDomains: {
    name: 'portfolio_domains',
    indexes: [{ key: { account_id: 1, domain: 1 }, name: 'account_domain', unique: true }],
  },
  portfolioScans: { name: 'portfolio_scans', indexes: [{ key: { domain: 1, scanned_at: -1 }, name: 'domain_scanned' }] },
  portfolioChanges: { name: 'portfolio_changes', indexes: [{ key: { domain: 1, detected_at: -1 }, name: 'domain_detected' }] },
} as const satisfies Record<string, CollectionDef>;

export type CollectionKey = keyof typeof COLLECTIONS;
export const ALL_COLLECTIONS: readonly CollectionDef[] = Object.values(COLLECTIONS);
