// Every MongoDB collection and index of the platform, declared once. `ensureCollections` in
// @dv/runtime applies them idempotently at start. Retained data carries a TTL index on
// `expires_at` so MongoDB removes it after the retention window on its own.

import { EXPORT_FILES_BUCKET } from './portfolio-exports.ts';

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
  /** People who sign in to the web pages, one per email address (lowercased). */
  people: { name: 'people', indexes: [{ key: { email: 1 }, name: 'email', unique: true }] },
  /** Who belongs to which account, and as what; one membership per person and account. */
  memberships: {
    name: 'memberships',
    indexes: [
      { key: { account_id: 1, person_id: 1 }, name: 'account_person', unique: true },
      { key: { person_id: 1 }, name: 'person' },
    ],
  },
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
  // Portfolio scanner (types in portfolio-docs.ts; docs/portfolio-scanner.md "Data model"). One corpus
  // document per domain name, whoever watches it (the scan is stored once); per-account documents
  // hold the account's own fields and a copy of the few scan fields the list, its filters and the
  // dashboard read, so none of those queries joins the corpus.
  portfolioCorpus: {
    name: 'portfolio_corpus',
    // _id is the domain name. Queries on the global domain view carry `watchers: {$gt: 0}` (the
    // active corpus) so the partial indexes below apply; the plain list pages on _id.
    indexes: [
      // The rescan planner: monitored domains whose next_scan_at has passed (null = not monitored;
      // a `$lte: <date>` range skips nulls. Not partial on $type: MongoDB would not use it for that range).
      { key: { next_scan_at: 1 }, name: 'next_scan' },
      // Global view: `email_gateway` filter and gateway distribution, paged on _id.
      { key: { 'result.email_gateway': 1, _id: 1 }, name: 'watched_gateway', partialFilterExpression: { watchers: { $gt: 0 } } },
      // Global view: `dmarc_status` filter and DMARC distribution, paged on _id.
      { key: { 'result.dmarc_policy_p': 1, _id: 1 }, name: 'watched_dmarc', partialFilterExpression: { watchers: { $gt: 0 } } },
    ],
    // Partial on `$type: 'date'` in its first version, which the planner's `$lte` range did not use.
    dropped: ['next_scan_due'],
  },
  portfolioDomains: {
    name: 'portfolio_domains',
    // _id is `<account_id>:<domain>`. Lists page on `id` (the spec's list has no sort parameter);
    // removed domains are few and are filtered out as a residual of these indexes.
    indexes: [
      // Adding a name (is it there already?), `search` on the name, listing by name.
      { key: { account_id: 1, domain: 1 }, name: 'account_domain', unique: true },
      // GET /domains/{id}/ (and its scan-results, changes, whois), the default list paged by id.
      { key: { account_id: 1, id: 1 }, name: 'account_id', unique: true },
      // `email_gateway` filter (list, export `gateway`) and the dashboard's gateway distribution.
      { key: { account_id: 1, email_gateway: 1, id: 1 }, name: 'account_gateway' },
      // `dmarc_status` filter (list, export `dmarc_policy`) and the dashboard's DMARC distribution.
      { key: { account_id: 1, dmarc_policy_p: 1, id: 1 }, name: 'account_dmarc' },
      // `folder_id` filter (list, export folder_id).
      { key: { account_id: 1, folder_id: 1, id: 1 }, name: 'account_folder' },
      // Export `status` filter, the dashboard's total_domains (active count).
      { key: { account_id: 1, status: 1, id: 1 }, name: 'account_status' },
      // Dashboard spf_status: a count per bucket (valid, over_limit, missing).
      { key: { account_id: 1, spf_status: 1 }, name: 'account_spf' },
      // Dashboard needs_attention_count: only the domains that need attention are in the index.
      { key: { account_id: 1, needs_attention: 1 }, name: 'account_attention', partialFilterExpression: { needs_attention: true } },
      // Dashboard scan_freshness: counts of scanned_at within 24 h / 7 days.
      { key: { account_id: 1, scanned_at: -1 }, name: 'account_scanned' },
      // Dashboard recent_changes: the account's domains with the latest changes, then their change records.
      { key: { account_id: 1, last_change_at: -1 }, name: 'account_last_change' },
      // A stored scan updates the summary fields of every account watching the domain.
      { key: { domain: 1 }, name: 'domain' },
    ],
    // Partial on `$type: 'date'` in their first version, which range queries on a date did not use.
    dropped: ['account_changed'],
  },
  portfolioChanges: {
    name: 'portfolio_changes',
    // _id is `<domain>:<slot>:<field>`: a retried store cannot write a change twice. Kept
    // CHANGE_RETENTION_DAYS (400) after detection, then removed by the TTL.
    indexes: [
      // GET /domains/{id}/changes/ and the detail's change_history: newest first, paged.
      { key: { domain_name: 1, id: -1 }, name: 'domain_changes' },
      { key: { id: 1 }, name: 'id', unique: true },
      expiresAt,
    ],
  },
  portfolioPlanTicks: {
    name: 'portfolio_plan_ticks',
    // _id is the tick id (`planned_tick` of the corpus documents it marked); read by _id only.
    indexes: [expiresAt],
  },
  portfolioWhois: {
    name: 'portfolio_whois',
    // _id is the domain name. The registration-data refresher: lookups due (next_fetch_at passed).
    indexes: [{ key: { next_fetch_at: 1 }, name: 'next_fetch_due' }],
  },
  portfolioExports: {
    name: 'portfolio_exports',
    // _id is the task id. Files live in the GridFS bucket EXPORT_FILES_BUCKET; the export sweeper
    // deletes record and file together after `expires_at` (a TTL would leave the file behind).
    indexes: [
      // GET /api/v1/exports/: the account's exports newest first, by id.
      { key: { account_id: 1, id: 1 }, name: 'account_export', unique: true },
      // Workers claim the oldest queued export, or one whose worker's lease lapsed.
      { key: { status: 1, created_at: 1 }, name: 'status_created' },
      // The sweeper: finished exports past their expiry.
      { key: { expires_at: 1 }, name: 'expires' },
      // The plan's limits as places an export holds (ExportDoc.pending_slot, stored_slot): two
      // requests racing for the last place cannot both insert, whatever the replicas.
      { key: { account_id: 1, pending_slot: 1 }, name: 'account_pending_slot', unique: true, partialFilterExpression: { pending_slot: { $type: 'number' } } },
      { key: { account_id: 1, stored_slot: 1 }, name: 'account_stored_slot', unique: true, partialFilterExpression: { stored_slot: { $type: 'number' } } },
    ],
  },
  // The GridFS bucket of export files (EXPORT_FILES_BUCKET), made here with the indexes the driver
  // would make (same keys and names) so the driver never creates them implicitly on a first
  // upload: two uploads creating portfolio_export_files.chunks at once ended mongod 7.0 under wine
  // ("Conflicted registering namespace", then no more log) and with it every later test of a run.
  portfolioExportFiles: {
    name: `${EXPORT_FILES_BUCKET}.files`,
    indexes: [{ key: { filename: 1, uploadDate: 1 }, name: 'filename_1_uploadDate_1' }],
  },
  portfolioExportChunks: {
    name: `${EXPORT_FILES_BUCKET}.chunks`,
    indexes: [{ key: { files_id: 1, n: 1 }, name: 'files_id_1_n_1', unique: true }],
  },
  portfolioApiKeys: {
    name: 'portfolio_api_keys',
    // _id is `<account_id>:<id>`. A presented key is found by its hash (then compared in constant
    // time); an account's keys are listed and counted (at most 3 active) by account.
    indexes: [
      { key: { hash: 1 }, name: 'hash', unique: true },
      { key: { account_id: 1, id: 1 }, name: 'account_key', unique: true },
    ],
  },
  // OAuth of the portfolio MCP connector (@dv/oauth, as the verification API's above): its own
  // collections, so a token of one service is unknown to the other.
  portfolioOauthClients: { name: 'portfolio_oauth_clients', indexes: [expiresAt] },
  portfolioOauthCodes: { name: 'portfolio_oauth_codes', indexes: [expiresAt] },
  portfolioOauthTokens: {
    name: 'portfolio_oauth_tokens',
    indexes: [{ key: { grant_id: 1 }, name: 'grant' }, expiresAt],
  },
} as const satisfies Record<string, CollectionDef>;

export type CollectionKey = keyof typeof COLLECTIONS;
export const ALL_COLLECTIONS: readonly CollectionDef[] = Object.values(COLLECTIONS);
