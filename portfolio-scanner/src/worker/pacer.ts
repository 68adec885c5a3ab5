// The order in which a worker starts the rescans it holds: the oldest whose operator has room for
// one more scan now, rather than the oldest. A rescan sends a dozen or more questions to its own
// zone's operator at once, and a small host's budget (50/s, split among the replicas: 23 a window
// each after the debit reserve) holds one such scan a second, not two: started in arrival order,
// two of one host's domains within a second made the second scan wait ~0.5 s in its place while
// other hosts were idle (a fifth of all query attempts waited so in the 100,000-domain bench).
// Rescans whose operator is unknown (no stored NS) start in arrival order; none waits here longer
// than `maxDeferMs` (it then starts and waits at its budget as before). Pure: the budgets and the
// clock come in as functions. docs/portfolio-scanner.md "Workers and planner".

export interface PacedOperator {
  key: string;
  qps: number;
}

export interface PacerOptions {
  /** Questions a rescan sends to its own operator (politeness: counted against the window). */
  queriesPerScan: number;
  /** Longest a rescan waits here for its operator's room. */
  maxDeferMs: number;
  /** The operator's room for `queries` more (politeness/scheduler.ts roomFor). */
  room: (operator: PacedOperator, queries: number) => { waitMs: number; fits: boolean };
  nowMs: () => number;
}

interface Entry<T> {
  item: T;
  operator: PacedOperator | null;
  since: number;
}

export type PacerNext<T> = { item: T; operator: PacedOperator | null } | { retryInMs: number } | null;

export class RescanPacer<T> {
  readonly #o: PacerOptions;
  #queue: Entry<T>[] = [];
  /** Scans started and not yet done with their DNS work, per operator key. */
  readonly #active = new Map<string, number>();

  constructor(options: PacerOptions) {
    this.#o = options;
  }

  get size(): number {
    return this.#queue.length;
  }

  push(item: T, operator: PacedOperator | null): void {
    this.#queue.push({ item, operator, since: this.#o.nowMs() });
  }

  /**
   * The rescan to start now (counted as active for its operator until `done`), or when to look
   * again (Infinity: when a scan ends), or null when none is held.
   */
  next(): PacerNext<T> {
    if (this.#queue.length === 0) return null;
    const now = this.#o.nowMs();
    let retryInMs = Infinity;
    // One answer per operator per call: its other rescans further back have no more room.
    const full = new Set<string>();
    for (let i = 0; i < this.#queue.length; i++) {
      const e = this.#queue[i] as Entry<T>;
      if (e.operator && now - e.since < this.#o.maxDeferMs) {
        if (full.has(e.operator.key)) continue;
        const wait = this.#wait(e.operator);
        if (wait > 0) {
          full.add(e.operator.key);
          retryInMs = Math.min(retryInMs, wait, e.since + this.#o.maxDeferMs - now);
          continue;
        }
      }
      this.#queue.splice(i, 1);
      if (e.operator) this.#active.set(e.operator.key, (this.#active.get(e.operator.key) ?? 0) + 1);
      return { item: e.item, operator: e.operator };
    }
    return { retryInMs };
  }

  /** A started rescan's DNS work is done (or it ended early): its operator may take another. */
  done(operator: PacedOperator | null): void {
    if (!operator) return;
    const n = (this.#active.get(operator.key) ?? 0) - 1;
    if (n > 0) this.#active.set(operator.key, n);
    else this.#active.delete(operator.key);
  }

  /** Every held rescan, removed (shutdown). */
  drain(): T[] {
    const items = this.#queue.map((e) => e.item);
    this.#queue = [];
    return items;
  }

  /**
   * 0 when the operator has room now for one more scan besides those running (their questions not
   * yet sent are counted in full: an overestimate that only makes a host wait a little longer);
   * else how long until it may (Infinity: only when a running scan of it ends).
   */
  #wait(operator: PacedOperator): number {
    const active = this.#active.get(operator.key) ?? 0;
    const room = this.#o.room(operator, this.#o.queriesPerScan * (active + 1));
    // A window too small for one more scan beside the running ones: the running ones end first.
    if (!room.fits && active > 0) return Infinity;
    return room.waitMs;
  }
}
