// Groups a worker's MongoDB work: the reads of the corpus documents of the scans starting and the
// stores of the scans that finish together (storeScans, one transaction). Under load a worker's
// scans finish faster than MongoDB takes one read or one transaction each, and each is a round
// trip or several whatever it holds. Self-tuning: a group starts at once while fewer than
// `maxInFlight` are running; what comes meanwhile waits and leaves in the next one (up to
// `maxBatch`), so a quiet worker sends each alone and a busy one in groups, never on a timer.

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
  #queue: Waiting<I, O>[] = [];
  #inFlight = 0;

  constructor(run: DoMany<I, O>, options: { maxBatch: number; maxInFlight: number }) {
    this.#run1 = run;
    this.#maxBatch = Math.max(1, options.maxBatch);
    this.#maxInFlight = Math.max(1, options.maxInFlight);
  }

  /** Resolves with the item's answer once its group is done; rejects if its work failed. */
  add(item: I): Promise<O> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ item, resolve, reject });
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
