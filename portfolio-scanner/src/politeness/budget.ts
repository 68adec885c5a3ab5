// One rate budget as a sliding window: at most `limit` queries in any window of `windowMs`, where
// a rate of at least 1/s is floor(qps) per 1,000 ms, and a slower one is one per 1,000/qps ms. The
// window is the budget itself, so a scan's dozen questions to one small host go out together
// instead of one interval apart: GCRA (a token bucket) had either to space them 1/qps apart (at 25
// queries/s per replica a rescan of a small host's domain waited ~600 ms on its own operator while
// the host was idle) or to allow a burst above the per-second budget.
//
// A query is dated by when it ended, not by when it was granted: from its grant (`take`) until its
// answer or timeout (`settle`) it is in flight and counts in every window; then it counts at its
// end time. Its arrival at the server lies between the two, so however long a loaded worker stalls
// between a grant and the socket, no second at the server holds more than `limit`: for the last
// query granted among any that arrived within one second, every other one was either still in
// flight at its grant or ended less than a second before it. Dating by the grant alone held only
// while no worker stalled longer than a margin (250 ms) between a grant and its socket. Pure: the
// caller passes the time. `marginMs` lengthens the
// window, for an answer read before its query's arrival was counted (clock granularity).

export class Budget {
  #limit: number;
  #windowMs: number;
  readonly #marginMs: number;
  readonly #reserve: number;
  /** End times of the most recent settled queries, at least `#limit` of them kept, oldest at `#head`. */
  #ring: Float64Array;
  #count = 0;
  #head = 0;
  /** Granted and not yet settled. */
  #inFlight = 0;
  /** No grant before this (a replica joining others). */
  #holdUntil = -Infinity;

  /**
   * `reserve`: places of each window left out of the grants, for queries charged after they were
   * sent (`record` without a grant: a new zone's NS question, whose operator its answer names).
   */
  constructor(qps: number, marginMs = 0, reserve = 0) {
    this.#marginMs = marginMs;
    this.#reserve = reserve;
    [this.#limit, this.#windowMs] = shape(qps, marginMs, reserve);
    this.#ring = new Float64Array(this.#limit);
  }

  /**
   * A new rate (another replica joined or left). Every kept query keeps counting, so a rate lowered
   * and raised again within a window does not forget queries made under the first one.
   */
  setQps(qps: number): void {
    const kept = Array.from({ length: this.#count }, (_, i) => this.#at(i));
    [this.#limit, this.#windowMs] = shape(qps, this.#marginMs, this.#reserve);
    this.#ring = new Float64Array(Math.max(this.#limit, kept.length));
    this.#ring.set(kept);
    this.#head = 0;
  }

  /**
   * The earliest time a grant may be allowed: when the query `limit` places back (in-flight ones
   * last, as if they ended now) leaves the window. Exact when fewer than `limit` are in flight;
   * else a lower bound (they end at now or later), so a timer armed for it looks again.
   */
  readyAt(nowMs: number): number {
    return this.readyAtAfter(0, nowMs);
  }

  /**
   * The earliest time of a grant that has `ahead` others before it, each granted as early as
   * allowed and ended at once: the query `limit` places earlier must have left the window, and the
   * grants to come repeat the kept ones' pattern one window later per round. A lower bound while
   * queries are in flight (they may end later than now), so a refusal on it is never wrong.
   */
  readyAtAfter(ahead: number, nowMs: number): number {
    const rounds = Math.floor(ahead / this.#limit);
    const back = this.#count + this.#inFlight + (ahead % this.#limit) - this.#limit;
    const first = back < 0 ? nowMs : Math.max(nowMs, (back < this.#count ? this.#at(back) : nowMs) + this.#windowMs);
    return Math.max(first, this.#holdUntil) + rounds * this.#windowMs;
  }

  canGrant(nowMs: number): boolean {
    return nowMs >= this.readyAt(nowMs);
  }

  /** A grant: its query counts as in flight until `settle`. */
  take(): void {
    this.#inFlight++;
  }

  /** A granted query ended (answered or timed out) at `nowMs`. */
  settle(nowMs: number): void {
    if (this.#inFlight > 0) this.#inFlight--;
    this.record(nowMs);
  }

  /** A query that already ended at `nowMs` without a grant (a debit). */
  record(nowMs: number): void {
    const size = this.#ring.length;
    if (this.#count < size) {
      this.#ring[(this.#head + this.#count++) % size] = nowMs;
      return;
    }
    this.#ring[this.#head] = nowMs;
    this.#head = (this.#head + 1) % size;
  }

  /** No grant before `atMs` (queries made before keep counting). */
  holdUntil(atMs: number): void {
    this.#holdUntil = Math.max(this.#holdUntil, atMs);
  }

  /** Idle: nothing in flight, none ended within the last window and no hold, so a fresh budget behaves the same. */
  idle(nowMs: number): boolean {
    const last = this.#count === 0 ? -Infinity : this.#at(this.#count - 1);
    return this.#inFlight === 0 && last + this.#windowMs <= nowMs && this.#holdUntil <= nowMs;
  }

  /** The i-th kept end time, oldest first. */
  #at(i: number): number {
    return this.#ring[(this.#head + i) % this.#ring.length] as number;
  }
}

/** [queries per window, window in ms] for a rate in queries per second (at least one). */
function shape(qps: number, marginMs: number, reserve: number): [number, number] {
  if (!(qps > 0)) throw new Error(`a budget needs a positive rate, got ${qps}`);
  return qps >= 1 ? [Math.max(1, Math.floor(qps) - reserve), 1000 + marginMs] : [1, 1000 / qps + marginMs];
}
