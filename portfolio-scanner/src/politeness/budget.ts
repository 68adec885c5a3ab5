// One rate budget as a sliding window: at most `limit` grants in any window of `windowMs`, where
// a rate of at least 1/s is floor(qps) grants per 1,000 ms, and a slower one is one grant per
// 1,000/qps ms. The window is the budget itself, so the per-second promise is exact (no second
// ever holds more than floor(qps)) and a scan's dozen questions to one small host go out together
// instead of one interval apart: GCRA (a token bucket) had either to space them 1/qps apart (at 25
// queries/s per replica a rescan of a small host's domain waited ~600 ms on its own operator
// while the host was idle) or to allow a burst above the per-second budget. Pure: the caller
// passes the time. Keeps the times of the last `limit` grants or more (a ring). `marginMs` lengthens the
// window: a grant's query reaches the server a little after the grant (event loop, sockets), and
// not always by the same delay, so a window of exactly one second at the sender could put two
// windows' grants into one second at the server.

export class Budget {
  #limit: number;
  #windowMs: number;
  readonly #marginMs: number;
  readonly #reserve: number;
  /** Times of the most recent grants, at least `#limit` of them kept, oldest at `#head`. */
  #ring: Float64Array;
  #count = 0;
  #head = 0;
  /** No grant before this (a replica joining others). */
  #holdUntil = -Infinity;

  /**
   * `reserve`: places of each window left out of the grants, for queries charged after they were
   * sent (`take` without a grant: a new zone's NS question, whose operator its answer names).
   */
  constructor(qps: number, marginMs = 0, reserve = 0) {
    this.#marginMs = marginMs;
    this.#reserve = reserve;
    [this.#limit, this.#windowMs] = shape(qps, marginMs, reserve);
    this.#ring = new Float64Array(this.#limit);
  }

  /**
   * A new rate (another replica joined or left). Every kept grant keeps counting, so a rate lowered
   * and raised again within a window does not forget grants made under the first one.
   */
  setQps(qps: number): void {
    const kept = Array.from({ length: this.#count }, (_, i) => this.#at(i));
    [this.#limit, this.#windowMs] = shape(qps, this.#marginMs, this.#reserve);
    this.#ring = new Float64Array(Math.max(this.#limit, kept.length));
    this.#ring.set(kept);
    this.#head = 0;
  }

  /** The earliest time a grant is allowed: when the grant `limit` places back leaves the window. */
  readyAt(): number {
    const full = this.#count >= this.#limit ? this.#at(this.#count - this.#limit) + this.#windowMs : -Infinity;
    return Math.max(full, this.#holdUntil);
  }

  /**
   * The earliest time of a grant that has `ahead` others before it, each granted as early as
   * allowed: the grant `limit` places earlier must have left the window, and the grants to come
   * repeat the kept ones' pattern one window later per round.
   */
  readyAtAfter(ahead: number, nowMs: number): number {
    const rounds = Math.floor(ahead / this.#limit);
    const back = this.#count + (ahead % this.#limit) - this.#limit;
    const first = back < 0 ? nowMs : Math.max(nowMs, this.#at(back) + this.#windowMs);
    return Math.max(first, this.#holdUntil) + rounds * this.#windowMs;
  }

  canGrant(nowMs: number): boolean {
    return nowMs >= this.readyAt();
  }

  take(nowMs: number): void {
    const size = this.#ring.length;
    if (this.#count < size) {
      this.#ring[(this.#head + this.#count++) % size] = nowMs;
      return;
    }
    this.#ring[this.#head] = nowMs;
    this.#head = (this.#head + 1) % size;
  }

  /** No grant before `atMs` (grants made before keep counting). */
  holdUntil(atMs: number): void {
    this.#holdUntil = Math.max(this.#holdUntil, atMs);
  }

  /** Idle: no grant within the last window and no hold, so a fresh budget behaves the same. */
  idle(nowMs: number): boolean {
    const last = this.#count === 0 ? -Infinity : this.#at(this.#count - 1);
    return last + this.#windowMs <= nowMs && this.#holdUntil <= nowMs;
  }

  /** The i-th kept grant, oldest first. */
  #at(i: number): number {
    return this.#ring[(this.#head + i) % this.#ring.length] as number;
  }
}

/** [grants per window, window in ms] for a rate in queries per second (at least one grant). */
function shape(qps: number, marginMs: number, reserve: number): [number, number] {
  if (!(qps > 0)) throw new Error(`a budget needs a positive rate, got ${qps}`);
  return qps >= 1 ? [Math.max(1, Math.floor(qps) - reserve), 1000 + marginMs] : [1, 1000 / qps + marginMs];
}
