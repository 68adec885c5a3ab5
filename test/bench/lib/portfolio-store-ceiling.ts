// The store's own ceiling for what one rescan writes (the test MongoDB is slow: the bench reports a
// ratio to it, docs/bench/README.md): the worker's read of the corpus document, then the store of an unchanged
// result for a new slot, grouped as the worker groups them (Batcher over storeScans, its
// defaults; one batcher per worker). No DNS, no NATS: a closed loop of `concurrency` callers per
// worker, as the scan places are, for `durationS`.
import type { Db } from 'mongodb';
import { COLLECTIONS, scanObservation, type CorpusDomainDoc, type ScanOutcome } from '@dv/contracts';
import { PORTFOLIO_DEFAULTS } from '@dv/portfolio-scanner/defaults';
import { storeScans, type ScanToStore, type StoreScanResult } from '@dv/portfolio-scanner/bench';
import { Batcher } from '@dv/portfolio-scanner/bench';

export interface StoreCeilingOptions {
  db: Db;
  workers: number;
  /** Scan places per worker. */
  concurrency: number;
  durationS: number;
  intervalS: number;
}

const OBSERVED = Object.keys(scanObservation.shape).filter((k) => k !== 'scanned_at');

/** Stores per second MongoDB takes, at most, for rescans that change nothing. */
export async function portfolioStoreCeiling(o: StoreCeilingOptions): Promise<number> {
  const corpus = o.db.collection<CorpusDomainDoc>(COLLECTIONS.portfolioCorpus.name);
  const docs = await corpus.find({ result: { $ne: null } }, { projection: { _id: 1, result: 1, unknown_fields: 1 } }).limit(50_000).toArray();
  if (docs.length === 0) throw new Error('no scanned domain to store again');
  // Slots after every real one, one per round over the domains: each store is new, as a rescan's is.
  const baseSlot = Date.now() + 30 * 86_400_000;
  let next = 0;
  let stores = 0;
  const end = performance.now() + o.durationS * 1000;
  const batchers = Array.from(
    { length: o.workers },
    () => new Batcher((scans: readonly ScanToStore[]) => storeScans(o.db, scans, { intervalS: o.intervalS }), { maxBatch: PORTFOLIO_DEFAULTS.storeBatchMax, maxInFlight: PORTFOLIO_DEFAULTS.storeBatchesInFlight }),
  );
  const caller = async (batcher: Batcher<ScanToStore, StoreScanResult>) => {
    while (performance.now() < end) {
      const k = next++;
      const doc = docs[k % docs.length]!;
      await corpus.findOne({ _id: doc._id }, { projection: { last_slot: 1, watchers: 1, last_full_dkim_at: 1, 'result.dkim_selectors': 1, 'result.ns': 1 } });
      const result = doc.result as unknown as Record<string, unknown>;
      const observation = Object.fromEntries(OBSERVED.map((f) => [f, result[f] ?? null]));
      const outcome: ScanOutcome = { observation: { ...observation, scanned_at: new Date() } as ScanOutcome['observation'], unconfirmed: [], queries: 0 };
      const r = await batcher.add({ domain: doc._id, slot: baseSlot + Math.floor(k / docs.length), outcome });
      if (r.stored) stores++;
    }
  };
  const t0 = performance.now();
  await Promise.all(batchers.flatMap((b) => Array.from({ length: o.concurrency }, () => caller(b))));
  return stores / ((performance.now() - t0) / 1000);
}
