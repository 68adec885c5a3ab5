import type { ScanField, ScanResult } from './portfolio.ts';

// The portfolio scanner's stored documents, shared by the scan workers (write scans, changes,
// registration data) and the portfolio API (reads them, writes account domains). Collection names
// and indexes are in collections.ts; docs/portfolio-scanner.md ("Data model") tells the whole story.

/** Change records are kept this long (users expect a year of history; TTL on `expires_at`). */
export const CHANGE_RETENTION_DAYS = 400;

/**
 * `portfolio_corpus`: one document per domain name, whoever watches it. A domain watched by many
 * accounts is scanned once per slot and stored here once.
 */
export interface CorpusDomainDoc {
  /** The domain name: lower case, A-label (IDNA) form, no trailing dot. */
  _id: string;
  /** Public suffix (may be multi-label, e.g. `co.uk`). */
  tld: string;
  /** The latest scan; null until the first scan is stored. */
  result: ScanResult | null;
  scan_count: number;
  first_seen: Date;
  last_scanned: Date | null;
  /** Scan slot (`slotOf`) of the stored result: a second store for this slot or an older one changes nothing. */
  last_slot: number | null;
  /**
   * Fields no scan has confirmed yet (their null in `result` is not an observation): the first
   * confirmed answer for one of them is a first observation, never a Change record.
   */
  unknown_fields: ScanField[];
  /** detected_at of the domain's latest change record (copied to accounts that add the domain later). */
  last_change_at: Date | null;
  /** Due time of the next scan; null while no account watches the domain (not monitored). */
  next_scan_at: Date | null;
  /** Accounts whose account-domain document is `active` for this name; 0 = not monitored. */
  watchers: number;
  /**
   * Rescan planner: when the domain's latest message was published (its slot is the slot of this
   * time). Absent until first planned.
   */
  planned_at?: Date;
  /**
   * Rescan planner: the tick that published it (`portfolio_plan_ticks`, where its stream sequence
   * is, to tell a lost message from a queued one). One value for all the domains of a tick, so the
   * planner marks them with one update (a sequence each was a write each).
   */
  planned_tick?: string | null;
  /** `scanned_at` of the latest stored scan that swept the whole DKIM selector list (weekly). */
  last_full_dkim_at?: Date | null;
}

/**
 * `portfolio_plan_ticks`: what one planner tick published, the domains and their messages' stream
 * sequences in the same order. Read only when a domain's grace passed and its slot is still not
 * stored; removed by the TTL after an interval and a grace (the slot is over by then).
 */
export interface PlanTickDoc {
  /** `<ms>-<random>`: ticks of two planner replicas (a lease handover) never share one. */
  _id: string;
  at: Date;
  domains: string[];
  seqs: number[];
  expires_at: Date;
}

export type AccountDomainStatus = 'active' | 'inactive' | 'removed';

/**
 * The scan fields an account-domain document carries for the list, its filters and the dashboard,
 * copied from the corpus when a scan changes them (accountDomainSummary).
 */
export interface AccountDomainSummary {
  email_gateway: string | null;
  dmarc_policy_p: ScanResult['dmarc_policy_p'];
  spf: string | null;
  spf_limit: string | null;
  spf_total_lookups: number | null;
  scanned_at: Date | null;
  /** DMARC missing or `p=none`, SPF missing or over the RFC 7208 limit of 10 lookups (dashboard `needs_attention_count`). */
  needs_attention: boolean;
  /** Dashboard `spf_status` bucket: `missing` (no SPF, or not scanned), `over_limit` (more than 10 lookups), `valid`; indexed, so the dashboard counts it without reading documents. */
  spf_status: SpfStatus;
  /**
   * `detected_at` of the latest change record the account sees (detected since its `first_seen`;
   * dashboard `recent_changes` starts here). The corpus's own is never copied in: it may predate the account.
   */
  last_change_at: Date | null;
}

/** `portfolio_domains`: one document per (account, domain). */
export interface AccountDomainDoc extends AccountDomainSummary {
  /** `<account_id>:<domain>` (accountDomainId), so adding the same name twice is one document. */
  _id: string;
  /** The domain's id in the account (counter `portfolio_domains:<account_id>`), used in API paths. */
  id: number;
  account_id: string;
  domain: string;
  tld: string;
  added_at: Date;
  /**
   * Start of the account's own history of the name: when it added it, again when it re-adds it
   * after removing it (a pause as `inactive` keeps it). The detail's `first_seen`, and the change
   * records and change-tracking fields the account sees, start here (docs/portfolio-scanner.md
   * "Tenant history"). Absent on documents stored before it existed: `added_at` stands in.
   */
  first_seen?: Date;
  /** The corpus's `scan_count` at `first_seen`: the account's `scan_count` is the corpus's minus this (absent: 0). */
  scan_count_base?: number;
  status: AccountDomainStatus;
  /** Set while `status` is `removed`. */
  removed_at: Date | null;
  folder_id: number | null;
  is_favorite: boolean;
  tags: string[];
  notes: string | null;
  custom_label: string | null;
}

/**
 * `portfolio_changes`: one per changed tracked field per scan. A change is a fact about a domain,
 * not an account, so it is stored once whoever watches the domain; `id` is global (counter
 * `portfolio_changes`), increasing in the order changes are stored.
 */
export interface ChangeDoc {
  /** `<domain>:<slot>:<field>` (changeId): a retried store cannot write the same change twice. */
  _id: string;
  id: number;
  domain_name: string;
  field_name: ScanField;
  old_value: string | null;
  new_value: string | null;
  detected_at: Date;
  /** Scan slot the change was detected in. */
  slot: number;
  /** detected_at + CHANGE_RETENTION_DAYS (TTL). */
  expires_at: Date;
}

/** `portfolio_whois`: the spec's WHOIS record, one per domain, refreshed on its own schedule. */
export interface WhoisDoc {
  /** The domain name. */
  _id: string;
  domain_name: string;
  registrar: string | null;
  name_servers: string | null;
  registrant_name: string | null;
  registrant_org: string | null;
  registrant_country: string | null;
  registrant_state: string | null;
  contact_email: string | null;
  registrar_abuse_email: string | null;
  registrar_abuse_phone: string | null;
  dnssec_status: string | null;
  whois_status: string | null;
  whois_server: string | null;
  registration_date: Date | null;
  expiry_date: Date | null;
  updated_date: Date | null;
  privacy_enabled: boolean;
  /** EPP status codes. */
  domain_statuses: string[];
  ip_geolocation: Record<string, unknown>;
  fetched_at: Date;
  /** Due time of the next registration lookup (sooner when expiry is near). */
  next_fetch_at: Date;
  /**
   * How the latest lookup went (portfolio-scanner's LOOKUP_STATUSES: fetched, pending, deferred,
   * no_rdap_service, refused, unreachable), so a record without data says why. Absent on records
   * stored before it existed.
   */
  lookup_status?: string;
  /** Why the latest lookup gave no data, in words; null once one answered. */
  lookup_detail?: string | null;
  /** When the latest lookup was tried; null while none was. */
  last_attempt_at?: Date | null;
}

export const accountDomainId = (accountId: string, domain: string) => `${accountId}:${domain}`;
export const changeId = (domain: string, slot: number, field: string) => `${domain}:${slot}:${field}`;
/** `counters` ids: the last account-domain id given out in an account, the last change id. */
export const PORTFOLIO_COUNTERS = {
  accountDomains: (accountId: string) => `portfolio_domains:${accountId}`,
  changes: 'portfolio_changes',
  /** The last portfolio API key id given out in an account. */
  apiKeys: (accountId: string) => `portfolio_keys:${accountId}`,
  /** The last export id given out in an account. */
  exports: (accountId: string) => `portfolio_exports:${accountId}`,
  /** Written first by each transaction that checks the account's stored export bytes (their order). */
  exportStorage: (accountId: string) => `portfolio_export_storage:${accountId}`,
  /** Written first by each transaction that adds domains to the account under its plan's limit (their order). */
  domainsLimit: (accountId: string) => `portfolio_domains_limit:${accountId}`,
} as const;

/** RFC 7208 section 4.6.4: more DNS-querying mechanisms than this make SPF a permerror. */
export const SPF_LOOKUP_LIMIT = 10;

export const SPF_STATUSES = ['valid', 'over_limit', 'missing'] as const;
export type SpfStatus = (typeof SPF_STATUSES)[number];

/** The dashboard's SPF bucket of a result (null: never scanned). */
export function spfStatusOf(result: Pick<ScanResult, 'spf' | 'spf_total_lookups'> | null): SpfStatus {
  if (result === null || result.spf === null) return 'missing';
  return result.spf_total_lookups !== null && result.spf_total_lookups > SPF_LOOKUP_LIMIT ? 'over_limit' : 'valid';
}

/** The summary fields an account domain carries for a stored result (null result: never scanned). */
export function accountDomainSummary(result: ScanResult | null, lastChangeAt: Date | null): AccountDomainSummary {
  if (result === null) {
    return { email_gateway: null, dmarc_policy_p: null, spf: null, spf_limit: null, spf_total_lookups: null, scanned_at: null, needs_attention: false, spf_status: 'missing', last_change_at: lastChangeAt };
  }
  const dmarcWeak = result.dmarc_policy_p === null || result.dmarc_policy_p === 'none';
  const spfWeak = result.spf === null || (result.spf_total_lookups !== null && result.spf_total_lookups > SPF_LOOKUP_LIMIT);
  return {
    email_gateway: result.email_gateway,
    dmarc_policy_p: result.dmarc_policy_p,
    spf: result.spf,
    spf_limit: result.spf_limit,
    spf_total_lookups: result.spf_total_lookups,
    scanned_at: result.scanned_at,
    needs_attention: dmarcWeak || spfWeak,
    spf_status: spfStatusOf(result),
    last_change_at: lastChangeAt,
  };
}

/**
 * `portfolio_api_keys`: keys of the portfolio API (`svc_live_…`), apart from the verification API's
 * `api_keys` so neither service can ever take the other's keys. Only the SHA-256 of the key is stored.
 */
export interface PortfolioKeyDoc {
  /** `<account_id>:<id>`. */
  _id: string;
  /** The key's id in the account (counter `portfolio_keys:<account_id>`), used in API paths. */
  id: number;
  account_id: string;
  name: string;
  /** The first 12 characters of the key (`svc_live_` and 3 more): shown, never enough to use. */
  key_prefix: string;
  /** SHA-256 (hex) of the full key; the lookup index. */
  hash: string;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
  expires_at: Date | null;
}
