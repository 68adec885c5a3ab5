import type { Db } from 'mongodb';
import { COLLECTIONS, type AccountDomainDoc, type ChangeDoc, type CorpusDomainDoc, type ScanResult, type WhoisDoc } from '@dv/contracts';
import { PortfolioError } from './errors.ts';
import { accountCounts, changeFilter, historySince, scanResultSince } from './history.ts';

// Stored documents → the spec's resources (dates as ISO strings, internal fields dropped).

const iso = (d: Date | null | undefined): string | null => (d ? d.toISOString() : null);

export const domains = (db: Db) => db.collection<AccountDomainDoc>(COLLECTIONS.portfolioDomains.name);
export const corpus = (db: Db) => db.collection<CorpusDomainDoc>(COLLECTIONS.portfolioCorpus.name);
export const changes = (db: Db) => db.collection<ChangeDoc>(COLLECTIONS.portfolioChanges.name);
export const whois = (db: Db) => db.collection<WhoisDoc>(COLLECTIONS.portfolioWhois.name);

export function domainItem(d: AccountDomainDoc) {
  return {
    id: d.id,
    domain: d.domain,
    email_gateway: d.email_gateway,
    dmarc_policy_p: d.dmarc_policy_p,
    spf: d.spf,
    scanned_at: iso(d.scanned_at),
    added_at: iso(d.added_at),
    folder_id: d.folder_id,
    is_favorite: d.is_favorite,
    tags: d.tags,
  };
}

export function scanResultView(r: ScanResult | null) {
  if (!r) return null;
  return Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v instanceof Date ? v.toISOString() : v]));
}

export function changeView(c: ChangeDoc) {
  return { id: c.id, domain_name: c.domain_name, field_name: c.field_name, old_value: c.old_value, new_value: c.new_value, detected_at: c.detected_at.toISOString() };
}

export const NOT_LOOKED_UP = 'Registration data has not been looked up yet: the domain is queued for its first RDAP/WHOIS lookup.';

/**
 * The WHOIS record with why it holds no data (lookup_status, lookup_detail) and when the next
 * lookup is due. A domain without a stored record gets a pending one (next_fetch_at null: not
 * queued yet), so a client always reads a reason rather than a bare null. The spec's fetched_at
 * is never null, so a pending record carries when it was made; last_attempt_at is the lookup time.
 */
export function whoisView(w: WhoisDoc | null, domain: string, now = new Date()) {
  if (!w) {
    return {
      domain_name: domain, registrar: null, name_servers: null, registrant_name: null, registrant_org: null, registrant_country: null, registrant_state: null, contact_email: null,
      registrar_abuse_email: null, registrar_abuse_phone: null, dnssec_status: null, whois_status: 'pending', whois_server: null, registration_date: null, expiry_date: null, updated_date: null,
      privacy_enabled: false, domain_statuses: [], ip_geolocation: {}, fetched_at: now.toISOString(), lookup_status: 'pending', lookup_detail: NOT_LOOKED_UP, last_attempt_at: null, next_fetch_at: null,
    };
  }
  const { _id, next_fetch_at, lookup_status, lookup_detail, last_attempt_at, ...rest } = w;
  void _id;
  // Records stored before lookup_status existed: a pending one was never looked up, any other was.
  const status = lookup_status ?? (w.whois_status === 'pending' ? 'pending' : 'fetched');
  return {
    ...rest,
    registration_date: iso(w.registration_date),
    expiry_date: iso(w.expiry_date),
    updated_date: iso(w.updated_date),
    fetched_at: w.fetched_at.toISOString(),
    lookup_status: status,
    lookup_detail: lookup_detail ?? (status === 'pending' ? NOT_LOOKED_UP : null),
    last_attempt_at: iso(last_attempt_at),
    next_fetch_at: iso(next_fetch_at),
  };
}

/** The account's domain `id`, or 404 (an unknown id and another account's id answer the same). */
export async function findDomain(db: Db, accountId: string, id: number): Promise<AccountDomainDoc> {
  const doc = await domains(db).findOne({ account_id: accountId, id });
  if (!doc) throw new PortfolioError('not_found', `No domain with id ${id} in this account.`);
  return doc;
}

export const CHANGE_HISTORY_IN_DETAIL = 20;

/** `globalView`: the caller's plan has the global domain view (history.ts: it sees the corpus as such). */
export async function domainDetail(db: Db, d: AccountDomainDoc, globalView: boolean) {
  const since = historySince(d, globalView);
  const [c, history, w] = await Promise.all([
    corpus(db).findOne({ _id: d.domain }),
    changes(db).find(changeFilter(d.domain, since)).sort({ id: -1 }).limit(CHANGE_HISTORY_IN_DETAIL).toArray(),
    whois(db).findOne({ _id: d.domain }),
  ]);
  const counts = accountCounts(d, c, globalView);
  return {
    ...domainItem(d),
    tld: d.tld,
    status: d.status,
    first_seen: counts.first_seen.toISOString(),
    last_scanned: iso(c?.last_scanned ?? null),
    scan_count: counts.scan_count,
    notes: d.notes,
    custom_label: d.custom_label,
    scan_result: scanResultView(scanResultSince(c?.result ?? null, since)),
    change_history: history.map(changeView),
    whois: whoisView(w, d.domain),
  };
}

/** The latest scan of the account's domain, as the account sees it (history.ts). */
export async function accountScanResult(db: Db, d: AccountDomainDoc, globalView: boolean) {
  const c = await corpus(db).findOne({ _id: d.domain }, { projection: { result: 1 } });
  return scanResultView(scanResultSince(c?.result ?? null, historySince(d, globalView)));
}

/** A page of the account's change records of the domain, newest first, and how many there are. */
export async function accountChanges(db: Db, d: AccountDomainDoc, globalView: boolean, limit: number, offset: number) {
  const q = changeFilter(d.domain, historySince(d, globalView));
  const [docs, total] = await Promise.all([changes(db).find(q).sort({ id: -1 }).skip(offset).limit(limit).toArray(), changes(db).countDocuments(q)]);
  return { items: docs.map(changeView), total };
}
