import type { ClientSession, Collection, Db } from 'mongodb';
import {
  accountDomainId,
  accountDomainSummary,
  COLLECTIONS,
  PORTFOLIO_COUNTERS,
  type AccountDomainDoc,
  type CorpusDomainDoc,
  type CounterDoc,
} from '@dv/contracts';
import { normalizeDomainName, tldOf } from './names.ts';
import { nextDueAt, slotOf } from './schedule.ts';

// An account's domains (docs/portfolio-scanner.md "Data model"). Adding and removing keep the
// corpus's `watchers` exact (in one transaction with the account documents), since the planner
// scans only what someone watches. Adding (or re-adding after a removal) starts the account's own
// history of the name (`first_seen`, `scan_count_base`; "Tenant history").

export interface DomainOpsOptions {
  /** PORTFOLIO_RESCAN_INTERVAL_S. */
  intervalS: number;
  now?: Date;
  /** The plan's domains per account (active and inactive); past it the add throws DomainLimitReached and adds nothing. Absent: no limit (admin, demo). */
  maxDomains?: number;
}

/** An add that would take the account past its plan's domains (nothing was added). */
export class DomainLimitReached extends Error {
  readonly listed: number;
  readonly adding: number;
  readonly limit: number;
  constructor(listed: number, adding: number, limit: number) {
    super(`the account lists ${listed} domains; adding ${adding} would pass ${limit}`);
    this.name = 'DomainLimitReached';
    this.listed = listed;
    this.adding = adding;
    this.limit = limit;
  }
}

export interface AddedDomain {
  id: number;
  domain: string;
  /** `added`: new to the account; `reactivated`: was removed or inactive; `existing`: already active. */
  outcome: 'added' | 'reactivated' | 'existing';
  /** Due now: publish a priority scan (new to the corpus, or not monitored and not scanned this slot). */
  scan_now: boolean;
}

export interface AddDomainsResult {
  domains: AddedDomain[];
  invalid: Array<{ input: string; reason: string }>;
}

export async function addDomains(db: Db, accountId: string, names: readonly string[], opts: DomainOpsOptions): Promise<AddDomainsResult> {
  const now = opts.now ?? new Date();
  const invalid: AddDomainsResult['invalid'] = [];
  const wanted: string[] = [];
  for (const input of names) {
    const check = normalizeDomainName(input);
    if (!check.ok) invalid.push({ input, reason: check.reason });
    else if (!wanted.includes(check.domain)) wanted.push(check.domain);
  }
  if (wanted.length === 0) return { domains: [], invalid };

  const accounts = db.collection<AccountDomainDoc>(COLLECTIONS.portfolioDomains.name);
  const corpus = db.collection<CorpusDomainDoc>(COLLECTIONS.portfolioCorpus.name);
  const counters = db.collection<CounterDoc>(COLLECTIONS.counters.name);
  const lock = { _id: PORTFOLIO_COUNTERS.domainsLimit(accountId) };
  // Made outside the transaction: two transactions inserting it at once would clash on its _id.
  if (opts.maxDomains !== undefined) await counters.updateOne(lock, { $setOnInsert: { seq: 0 } }, { upsert: true });
  const session = db.client.startSession();
  try {
    const domains = await session.withTransaction(async () => {
      // Adds of one account under a limit run one at a time: each writes this document first, so
      // one that overlaps a committed or running add conflicts, is retried, and counts its domains.
      if (opts.maxDomains !== undefined) await counters.updateOne(lock, { $inc: { seq: 1 } }, { session });
      const mine = new Map((await accounts.find({ _id: { $in: wanted.map((d) => accountDomainId(accountId, d)) } }, { session }).toArray()).map((d) => [d.domain, d]));
      if (opts.maxDomains !== undefined) await checkLimit(accounts, session, accountId, wanted.filter((d) => (mine.get(d)?.status ?? 'removed') === 'removed').length, opts.maxDomains);
      const known = new Map((await corpus.find({ _id: { $in: wanted } }, { session }).toArray()).map((d) => [d._id, d]));
      const fresh = wanted.filter((d) => !mine.has(d));
      let nextId = fresh.length > 0 ? await takeIds(db, session, accountId, fresh.length) : 0;

      const out: AddedDomain[] = [];
      for (const domain of wanted) {
        const doc = mine.get(domain);
        if (doc?.status === 'active') {
          out.push({ id: doc.id, domain, outcome: 'existing', scan_now: false });
          continue;
        }
        const scanNow = await watch(corpus, session, domain, known.get(domain) ?? null, now, opts.intervalS);
        const c = known.get(domain) ?? null;
        // The account's history starts now unless it only paused the name (inactive): the
        // corpus's first_seen, scan count and last change belong to whoever watched it before.
        const keepsHistory = doc?.status === 'inactive';
        const history = { first_seen: now, scan_count_base: c?.scan_count ?? 0 };
        const summary = accountDomainSummary(c?.result ?? null, keepsHistory ? doc.last_change_at : null);
        if (doc === undefined) {
          const id = nextId++;
          await accounts.insertOne(
            {
              _id: accountDomainId(accountId, domain),
              id,
              account_id: accountId,
              domain,
              tld: tldOf(domain),
              added_at: now,
              ...history,
              status: 'active',
              removed_at: null,
              folder_id: null,
              is_favorite: false,
              tags: [],
              notes: null,
              custom_label: null,
              ...summary,
            },
            { session },
          );
          out.push({ id, domain, outcome: 'added', scan_now: scanNow });
        } else {
          // Re-adding keeps the id, folder, tags and notes; the summary may be stale (removed
          // documents are not kept in step), so it is copied again.
          await accounts.updateOne({ _id: doc._id }, { $set: { status: 'active', removed_at: null, ...summary, ...(keepsHistory ? {} : history) } }, { session });
          out.push({ id: doc.id, domain, outcome: 'reactivated', scan_now: scanNow });
        }
      }
      return out;
    });
    return { domains, invalid };
  } finally {
    await session.endSession();
  }
}

/** Marks the account's domain removed; the corpus stops scanning it when no account watches it. */
export async function removeDomain(db: Db, accountId: string, id: number, opts: { now?: Date } = {}): Promise<boolean> {
  const now = opts.now ?? new Date();
  const accounts = db.collection<AccountDomainDoc>(COLLECTIONS.portfolioDomains.name);
  const corpus = db.collection<CorpusDomainDoc>(COLLECTIONS.portfolioCorpus.name);
  const session = db.client.startSession();
  try {
    return await session.withTransaction(async () => {
      const doc = await accounts.findOne({ account_id: accountId, id }, { session });
      if (doc === null || doc.status === 'removed') return false;
      await accounts.updateOne({ _id: doc._id }, { $set: { status: 'removed', removed_at: now } }, { session });
      if (doc.status === 'active') {
        const c = await corpus.findOneAndUpdate({ _id: doc.domain }, { $inc: { watchers: -1 } }, { session, returnDocument: 'after' });
        if (c !== null && c.watchers <= 0) await corpus.updateOne({ _id: doc.domain }, { $set: { watchers: 0, next_scan_at: null } }, { session });
      }
      return true;
    });
  } finally {
    await session.endSession();
  }
}

/** Throws DomainLimitReached when `adding` more names would take the account's list past `limit`. */
async function checkLimit(accounts: Collection<AccountDomainDoc>, session: ClientSession, accountId: string, adding: number, limit: number): Promise<void> {
  if (adding === 0) return;
  // Two ranges of the account_status index, counted without reading a document.
  const listed = await accounts.countDocuments({ account_id: accountId, status: { $in: ['active', 'inactive'] } }, { session });
  if (listed + adding > limit) throw new DomainLimitReached(listed, adding, limit);
}

/** A block of `n` account-domain ids; returns the first. */
async function takeIds(db: Db, session: ClientSession, accountId: string, n: number): Promise<number> {
  const counter = await db
    .collection<CounterDoc>(COLLECTIONS.counters.name)
    .findOneAndUpdate({ _id: PORTFOLIO_COUNTERS.accountDomains(accountId) }, { $inc: { seq: n } }, { upsert: true, returnDocument: 'after', session });
  return (counter as CounterDoc).seq - n + 1;
}

/**
 * One more account watches the domain. A name new to the corpus, or one nobody watched (so not
 * scanned lately), is due now (a priority scan) unless it was already scanned in this slot.
 */
async function watch(corpus: Collection<CorpusDomainDoc>, session: ClientSession, domain: string, known: CorpusDomainDoc | null, now: Date, intervalS: number): Promise<boolean> {
  if (known === null) {
    await corpus.insertOne(
      { _id: domain, tld: tldOf(domain), result: null, scan_count: 0, first_seen: now, last_scanned: null, last_slot: null, unknown_fields: [], last_change_at: null, next_scan_at: now, watchers: 1 },
      { session },
    );
    return true;
  }
  if (known.watchers > 0 && known.next_scan_at !== null) {
    await corpus.updateOne({ _id: domain }, { $inc: { watchers: 1 } }, { session });
    return false;
  }
  const scannedThisSlot = known.last_slot !== null && known.last_slot >= slotOf(domain, now, intervalS);
  const due = scannedThisSlot ? nextDueAt(domain, intervalS, now) : now;
  await corpus.updateOne({ _id: domain }, { $set: { next_scan_at: due, watchers: Math.max(known.watchers, 0) + 1 } }, { session });
  return !scannedThisSlot;
}
