// Even spacing of one RDAP server's requests: one every 1/qps seconds (GCRA, no burst). The DNS
// budgets are windows that let a scan's questions go out together (politeness/budget.ts); a
// registry's RDAP server gets a request at a time, evenly, as registries ask. Pure: the caller
// passes the time.
export class Pacer {
  #intervalMs: number;
  /** When the next request may go. */
  #next = -Infinity;

  constructor(qps: number) {
    this.#intervalMs = 1000 / qps;
  }

  /** A new rate (another replica joined or left); the next request keeps its time. */
  setQps(qps: number): void {
    this.#intervalMs = 1000 / qps;
  }

  /** The earliest time the next request may go. */
  readyAt(): number {
    return this.#next;
  }

  /** Books a request at `atMs` (now, or a time readyAt gave): the next one goes an interval later. */
  take(atMs: number): void {
    this.#next = Math.max(this.#next, atMs) + this.#intervalMs;
  }
}
