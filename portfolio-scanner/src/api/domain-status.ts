import type { Db } from 'mongodb';
import { COLLECTIONS, type AccountDomainDoc, type AccountDomainStatus, type CorpusDomainDoc } from '@dv/contracts';
import { addDomains, removeDomain } from '../store/index.ts';

// Domain status transitions (docs/portfolio-scanner.md "API", Domain status): any status may go to
// any other. `active` is monitored (counts as a watcher, so the corpus keeps scanning it);
// `inactive` keeps the domain listed with its data but unmonitored; `removed` leaves the list and
// the dashboard (DELETE). Going back to `active` is adding it again (same id, fields kept).

export interface StatusChange {
  /** Names due for a priority scan now (re-activated after a pause). */
  scanNow: string[];
}

/** `maxDomains`: the plan's domains per account, for a removed domain coming back (DomainLimitReached past it). */
export async function setDomainStatus(db: Db, doc: AccountDomainDoc, target: AccountDomainStatus, intervalS: number, maxDomains?: number): Promise<StatusChange> {
  if (doc.status === target) return { scanNow: [] };
  if (target === 'removed') {
    await removeDomain(db, doc.account_id, doc.id);
    return { scanNow: [] };
  }
  if (target === 'active') {
    const r = await addDomains(db, doc.account_id, [doc.domain], { intervalS, maxDomains });
    return { scanNow: r.domains.filter((d) => d.scan_now).map((d) => d.domain) };
  }
  const accounts = db.collection<AccountDomainDoc>(COLLECTIONS.portfolioDomains.name);
  const corpus = db.collection<CorpusDomainDoc>(COLLECTIONS.portfolioCorpus.name);
  const session = db.client.startSession();
  try {
    await session.withTransaction(async () => {
      const now = await accounts.findOneAndUpdate({ _id: doc._id, status: { $ne: 'inactive' } }, { $set: { status: 'inactive', removed_at: null } }, { session });
      // Only an active domain counted as a watcher (domains.ts).
      if (now?.status === 'active') {
        const c = await corpus.findOneAndUpdate({ _id: doc.domain }, { $inc: { watchers: -1 } }, { session, returnDocument: 'after' });
        if (c !== null && c.watchers <= 0) await corpus.updateOne({ _id: doc.domain }, { $set: { watchers: 0, next_scan_at: null } }, { session });
      }
    });
  } finally {
    await session.endSession();
  }
  return { scanNow: [] };
}
