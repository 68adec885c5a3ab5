// Groups the stores of scans that finish together into one transaction (storeScans): under load
// a worker's scans finish faster than MongoDB takes one transaction each, and each transaction is
// several round trips whatever it holds. Self-tuning: a store starts at once while fewer than
// `maxInFlight` are running; what finishes meanwhile waits and leaves in the next one (up to
// `maxBatch`), so a quiet worker stores each scan alone and a busy one in groups, never on a timer.
import type { ScanToStore, StoreScanResult } from '../store/index.ts';

type StoreMany = (scans: readonly ScanToStore[]) => Promise<StoreScanResult[]>;

interface Waiting {
  scan: ScanToStore;
  resolve: (r: StoreScanResult) => void;
  reject: (err: Error) => void;
}

export class StoreBatcher {
  readonly #store: StoreMany;
  readonly #maxBatch: number;
  readonly #maxInFlight: number;
  #queue: Waiting[] = [];
  #inFlight = 0;

  constructor(store: StoreMany, options: { maxBatch: number; maxInFlight: number }) {
    this.#store = store;
    this.#maxBatch = Math.max(1, options.maxBatch);
    this.#maxInFlight = Math.max(1, options.maxInFlight);
  }

  /** Resolves once the scan's group is committed (or found already stored); rejects if its store failed. */
  add(scan: ScanToStore): Promise<StoreScanResult> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ scan, resolve, reject });
      this.#next();
    });
  }

  #next(): void {
    while (this.#inFlight < this.#maxInFlight && this.#queue.length > 0) {
      const group = this.#queue.splice(0, this.#maxBatch);
      this.#inFlight++;
      void this.#run(group).finally(() => {
        this.#inFlight--;
        this.#next();
      });
    }
  }

  async #run(group: Waiting[]): Promise<void> {
    try {
      const results = await this.#store(group.map((w) => w.scan));
      group.forEach((w, i) => w.resolve(results[i] as StoreScanResult));
    } catch (err) {
      if (group.length === 1) {
        (group[0] as Waiting).reject(err as Error);
        return;
      }
      // One bad scan must not fail its group-mates (each would be retried, and could run out of
      // deliveries): each is stored alone, and only the failing ones fail.
      await Promise.all(group.map((w) => this.#run([w])));
    }
  }
}
