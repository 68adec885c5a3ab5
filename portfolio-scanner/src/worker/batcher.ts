// Groups a worker's MongoDB work: the reads of the corpus documents of the scans starting and the
// stores of the scans that finish together (storeScans, one transaction). Under load a worker's
// scans finish faster than MongoDB takes one read or one transaction each, and each is a round
// trip or several whatever it holds. Self-tuning: a group starts at once while fewer than
// `maxInFlight` are running; what comes meanwhile waits and leaves in the next one (up to
// `maxBatch`), so a quiet worker sends each alone and a busy one in groups. With `lingerMs`, a
// group also waits that long after its first item for others to join (never longer, and not at
// all once maxBatch are waiting): each MongoDB command costs the worker CPU whatever it carries,
// and a worker's scans finish a few tens of milliseconds apart, so without it nearly every
// group held one item.

/** Does the work of a group; answers in the order of `items`. */
export type DoMany<I, O> = (items: readonly I[]) => Promise<O[]>;

interface Waiting<I, O> {
  item: I;
  resolve: (r: O) => void;
  reject: (err: Error) => void;
}

export class Batcher<I, O> {
  readonly #run1: DoMany<I, O>;
  readonly #maxBatch: number;
  readonly #maxInFlight: number;
  readonly #lingerMs: number;
  #queue: Waiting<I, O>[] = [];
  #inFlight = 0;
  /** When the oldest waiting item arrived (performance.now()). */
  #oldestAt = 0;
  #lingerTimer: NodeJS.Timeout | undefined;

  constructor(run: DoMany<I, O>, options: { maxBatch: number; maxInFlight: number; lingerMs?: number }) {
    this.#run1 = run;
    this.#maxBatch = Math.max(1, options.maxBatch);
    this.#maxInFlight = Math.max(1, options.maxInFlight);
    this.#lingerMs = Math.max(0, options.lingerMs ?? 0);
  }

  /** Resolves with the item's answer once its group is done; rejects if its work failed. */
  add(item: I): Promise<O> {
    return new Promise((resolve, reject) => {
      if (this.#queue.push({ item, resolve, reject }) === 1) this.#oldestAt = performance.now();
      this.#next();
    });
  }

  #next(): void {
    while (this.#inFlight < this.#maxInFlight && this.#queue.length > 0) {
      const waitMs = this.#oldestAt + this.#lingerMs - performance.now();
      if (waitMs > 0 && this.#queue.length < this.#maxBatch) {
        this.#lingerTimer ??= setTimeout(() => {
          this.#lingerTimer = undefined;
          this.#next();
        }, Math.ceil(waitMs));
        return;
      }
      clearTimeout(this.#lingerTimer);
      this.#lingerTimer = undefined;
      const group = this.#queue.splice(0, this.#maxBatch);
      // What is left has waited since it arrived, not since this group left; it goes at the next free place.
      if (this.#queue.length > 0) this.#oldestAt = -Infinity;
      this.#inFlight++;
      void this.#run(group).finally(() => {
        this.#inFlight--;
        this.#next();
      });
    }
  }

  async #run(group: Waiting<I, O>[]): Promise<void> {
    try {
      const results = await this.#run1(group.map((w) => w.item));
      group.forEach((w, i) => w.resolve(results[i] as O));
    } catch (err) {
      if (group.length === 1) {
        (group[0] as Waiting<I, O>).reject(err as Error);
        return;
      }
      // One bad item must not fail its group-mates (each scan would be retried, and could run out
      // of deliveries): each is done alone, and only the failing ones fail.
      await Promise.all(group.map((w) => this.#run([w])));
    }
  }
}
