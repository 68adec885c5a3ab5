// Group commit: writes that arrive while one is in flight are gathered and sent as one MongoDB
// round trip. Under load the per-request cost of a write falls from a round trip to a share of
// one (the database, not the request, was the bottleneck); alone, a write goes out at once.
// Each caller still learns its own outcome: `flush` answers per entry, an Error or a value.

export interface CoalescerOptions<T, R> {
  /** Writes one batch; returns, per entry and in order, its result or the Error that refused it. */
  flush: (batch: T[]) => Promise<Array<R | Error>>;
  /** Entries per round trip at most. */
  maxBatch: number;
  /** Round trips in flight at once; new entries wait for a free one and join its batch. */
  maxInFlight: number;
}

interface Pending<T, R> {
  value: T;
  resolve: (r: R) => void;
  reject: (e: unknown) => void;
}

export class Coalescer<T, R = void> {
  private readonly o: CoalescerOptions<T, R>;
  private queue: Pending<T, R>[] = [];
  private inFlight = 0;

  constructor(opts: CoalescerOptions<T, R>) {
    this.o = opts;
  }

  add(value: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ value, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.inFlight < this.o.maxInFlight && this.queue.length > 0) {
      const batch = this.queue.splice(0, this.o.maxBatch);
      this.inFlight++;
      void this.run(batch);
    }
  }

  private async run(batch: Pending<T, R>[]): Promise<void> {
    try {
      const results = await this.o.flush(batch.map((p) => p.value));
      batch.forEach((p, i) => {
        const r = results[i];
        if (r instanceof Error) p.reject(r);
        else p.resolve(r as R);
      });
    } catch (err) {
      for (const p of batch) p.reject(err);
    } finally {
      this.inFlight--;
      this.pump();
    }
  }
}
