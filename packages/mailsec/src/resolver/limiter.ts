// Caps the number of queries on the wire at once; the rest wait in arrival order.

export class Limiter {
  readonly #max: number;
  #active = 0;
  readonly #waiting: Array<(ok: boolean) => void> = [];
  #closed = false;

  constructor(max: number) {
    this.#max = Math.max(1, max);
  }

  get active(): number {
    return this.#active;
  }

  /** Takes a slot if one is free right now (no waiting, no promise). */
  tryAcquire(): boolean {
    if (this.#closed || this.#active >= this.#max || this.#waiting.length > 0) return false;
    this.#active++;
    return true;
  }

  /** Resolves true once a slot is held, false if the limiter was closed while waiting. */
  acquire(): Promise<boolean> {
    if (this.#closed) return Promise.resolve(false);
    if (this.#active < this.#max) {
      this.#active++;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  release(): void {
    const next = this.#waiting.shift();
    // The slot passes straight to the next waiter, so the count only drops when nobody waits.
    if (next) next(true);
    else this.#active = Math.max(0, this.#active - 1);
  }

  close(): void {
    this.#closed = true;
    for (const waiter of this.#waiting.splice(0)) waiter(false);
  }
}
