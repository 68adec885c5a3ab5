// Registration data on its own schedule: one lookup per domain (mailsec's lookupWhois: RDAP, else
// port 43), stored in portfolio_whois with the next due time; what is due, claimed so replicas do
// not look up one domain twice; and the domains the corpus watches that have no record yet.
import { randomInt } from 'node:crypto';
import type { Db } from 'mongodb';
import { COLLECTIONS, type CorpusDomainDoc, type WhoisDoc } from '@dv/contracts';
import { lookupWhois, type FetchOptions, type FetchOutcome, type WhoisDeps } from '@dv/mailsec';
import type { RefreshOutcome, RegistrationMetrics } from './metrics.ts';
import { failedLookup, type LookupStatus, type RdapAnswer } from './lookup-status.ts';
import { RdapDeferred, type RdapServerBudgets } from './rdap-budget.ts';
import { nextFetchAt, whoisRecord, type RegistrationSchedule } from './record.ts';

export interface RegistrationDeps {
  /** lookupWhois's dependencies without the RDAP hook (set from `budgets`). */
  whois: Omit<WhoisDeps, 'rdapFetch'>;
  budgets: RdapServerBudgets;
  schedule: RegistrationSchedule;
  /** When no source answered. */
  failureRetryS: number;
  metrics?: RegistrationMetrics;
  now?: () => Date;
}

const whoisColl = (db: Db) => db.collection<WhoisDoc>(COLLECTIONS.portfolioWhois.name);

/** A record nobody has fetched yet (whois_status "pending"), due at `at`. */
function pending(domain: string, at: Date): WhoisDoc {
  return {
    _id: domain, domain_name: domain, registrar: null, name_servers: null, registrant_name: null, registrant_org: null, registrant_country: null,
    registrant_state: null, contact_email: null, registrar_abuse_email: null, registrar_abuse_phone: null, dnssec_status: null, whois_status: 'pending',
    whois_server: null, registration_date: null, expiry_date: null, updated_date: null, privacy_enabled: false, domain_statuses: [], ip_geolocation: {},
    fetched_at: at, next_fetch_at: at, lookup_status: 'pending', lookup_detail: null, last_attempt_at: null,
  };
}

/** The pending record's fields a failed lookup sets only on insert (the rest it $sets). */
function insertOnly(domain: string, at: Date) {
  const { _id, next_fetch_at: _due, lookup_status: _s, lookup_detail: _d, last_attempt_at: _a, ...rest } = pending(domain, at);
  return rest;
}

/** Keeps the stored data (an outage is not a change) and records why this lookup gave none. */
async function recordFailure(db: Db, domain: string, now: Date, next: Date, status: LookupStatus, detail: string): Promise<void> {
  await whoisColl(db).updateOne(
    { _id: domain },
    { $set: { next_fetch_at: next, lookup_status: status, lookup_detail: detail, last_attempt_at: now }, $setOnInsert: insertOnly(domain, now) as never },
    { upsert: true },
  );
}

/**
 * Looks the domain up and stores the record. A lookup no source answered keeps the stored record
 * (a registry outage is not a change) and is tried again after failureRetryS; an RDAP server that
 * backs off or has no budget left puts the domain off until it may be asked. Either way the record
 * says why (lookup_status, lookup_detail).
 */
export async function refreshRegistration(db: Db, domain: string, deps: RegistrationDeps): Promise<{ outcome: RefreshOutcome; next: Date }> {
  const now = (deps.now ?? (() => new Date()))();
  let body: unknown;
  const answers: RdapAnswer[] = [];
  const rdapFetch = async (url: string, options: FetchOptions): Promise<FetchOutcome> => {
    const res = await deps.budgets.fetch(url, options);
    if (res.ok) body = res.body;
    else answers.push({ host: new URL(url).host, ...(res.status !== undefined ? { status: res.status } : {}), error: res.error });
    return res;
  };
  let outcome: RefreshOutcome;
  let next: Date;
  try {
    const w = await lookupWhois({ kind: 'domain', domain }, { ...deps.whois, rdapFetch });
    if (w.registered === null) {
      outcome = 'failed';
      next = new Date(now.getTime() + deps.failureRetryS * 1000);
      const why = failedLookup(w.query, answers, w);
      await recordFailure(db, domain, now, next, why.status, why.detail);
    } else {
      const expiry = w.registration?.expires ? new Date(w.registration.expires) : null;
      next = nextFetchAt(now, expiry && !Number.isNaN(expiry.getTime()) ? expiry : null, deps.schedule);
      outcome = w.registered ? 'found' : 'not_registered';
      const { _id, ...record } = whoisRecord(domain, w, body, now, next);
      await whoisColl(db).updateOne({ _id }, { $set: record }, { upsert: true });
    }
  } catch (err) {
    if (!(err instanceof RdapDeferred)) throw err;
    outcome = 'deferred';
    next = new Date(Math.max(err.untilMs, now.getTime() + 1000));
    await recordFailure(db, domain, now, next, 'deferred', `${err.message}.`);
  }
  deps.metrics?.refreshes.inc({ outcome });
  return { outcome, next };
}

/**
 * Domains whose registration data is due, oldest due first, each claimed for `claimMs` (its due
 * time moved on) so another replica's call does not return it too; a lookup that dies leaves the
 * domain due again after the claim. One update claims them all (it was one per domain, a MongoDB
 * command each); the claim time carries a random part of up to a tenth of claimMs, so when another
 * replica took some of them at once, the ones this call took are those holding its claim time.
 */
export async function dueRegistrations(db: Db, now: Date, limit: number, claimMs = 10 * 60_000): Promise<string[]> {
  const candidates = await whoisColl(db).find({ next_fetch_at: { $lte: now } }, { projection: { _id: 1 } }).sort({ next_fetch_at: 1 }).limit(limit).toArray();
  if (candidates.length === 0) return [];
  const ids = candidates.map((c) => c._id);
  const claimedUntil = new Date(now.getTime() + claimMs + randomInt(Math.max(1, Math.floor(claimMs / 10))));
  const res = await whoisColl(db).updateMany({ _id: { $in: ids }, next_fetch_at: { $lte: now } }, { $set: { next_fetch_at: claimedUntil } });
  if (res.modifiedCount === ids.length) return ids;
  const mine = new Set((await whoisColl(db).find({ _id: { $in: ids }, next_fetch_at: claimedUntil }, { projection: { _id: 1 } }).toArray()).map((d) => d._id));
  return ids.filter((id) => mine.has(id));
}

/**
 * Gives watched corpus domains without a record a pending one, due now: the next `batch` corpus
 * names after `afterId` (by _id, so a pass over millions is a walk, not a join). Returns where the
 * next call continues (null: the walk reached the end and starts again).
 */
export async function backfillRegistrations(db: Db, afterId: string | null, batch: number, now: Date): Promise<{ next: string | null; added: number }> {
  const corpus = db.collection<CorpusDomainDoc>(COLLECTIONS.portfolioCorpus.name);
  const page = await corpus.find({ ...(afterId ? { _id: { $gt: afterId } } : {}), next_scan_at: { $ne: null } }, { projection: { _id: 1 } }).sort({ _id: 1 }).limit(batch).toArray();
  if (page.length === 0) return { next: null, added: 0 };
  const ids = page.map((d) => d._id);
  const have = new Set((await whoisColl(db).find({ _id: { $in: ids } }, { projection: { _id: 1 } }).toArray()).map((d) => d._id));
  const missing = ids.filter((id) => !have.has(id));
  if (missing.length > 0) {
    await whoisColl(db).bulkWrite(missing.map((id) => ({ updateOne: { filter: { _id: id }, update: { $setOnInsert: pending(id, now) as never }, upsert: true } })), { ordered: false });
  }
  return { next: page.length < batch ? null : (ids[ids.length - 1] as string), added: missing.length };
}
