// One rate budget as GCRA (the virtual-scheduling form of a token bucket): a theoretical arrival
// time that each grant pushes one interval further. With a tolerance τ, any window of W ms holds at
// most floor((W + τ) / interval) + 1 grants, so at 50/s and τ = 10 ms a second never holds more
// than 51. Pure: the caller passes the time.

export class Budget {
  #intervalMs: number;
  #qps: number;
  readonly #toleranceMs: number;
  /** Theoretical arrival time of the next grant. */
  #tat = -Infinity;

  constructor(qps: number, toleranceMs: number) {
    this.#qps = qps;
    this.#intervalMs = 1000 / qps;
    this.#toleranceMs = toleranceMs;
  }

  get qps(): number {
    return this.#qps;
  }

  get intervalMs(): number {
    return this.#intervalMs;
  }

  /** A new rate (e.g. another replica joined); grants already made keep their spacing. */
  setQps(qps: number): void {
    this.#qps = qps;
    this.#intervalMs = 1000 / qps;
  }

  /** The earliest time a grant is allowed. */
  readyAt(): number {
    return this.#tat - this.#toleranceMs;
  }

  canGrant(nowMs: number): boolean {
    return nowMs >= this.readyAt();
  }

  take(nowMs: number): void {
    this.#tat = Math.max(this.#tat, nowMs) + this.#intervalMs;
  }

  /** No grant before `atMs` (grants made before keep counting). */
  holdUntil(atMs: number): void {
    this.#tat = Math.max(this.#tat, atMs + this.#toleranceMs);
  }

  /** Idle: no grant since one interval ago, so dropping it and starting afresh changes nothing. */
  idle(nowMs: number): boolean {
    return this.#tat <= nowMs;
  }
}
