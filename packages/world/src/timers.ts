// Delays that a server can cancel all at once when it stops, so no timer outlives it.
export class Timers {
  private readonly pending = new Map<NodeJS.Timeout, () => void>();
  private stopped = false;

  // Runs `fn` after `delayMs` unless cancelled; a zero delay runs it at once.
  later(delayMs: number, fn: () => void): void {
    if (this.stopped) return;
    if (delayMs <= 0) {
      fn();
      return;
    }
    const timer = setTimeout(() => {
      this.pending.delete(timer);
      fn();
    }, delayMs);
    this.pending.set(timer, () => undefined);
  }

  // Resolves after `delayMs`, or resolves false at once when the timers are cancelled.
  sleep(delayMs: number): Promise<boolean> {
    if (this.stopped) return Promise.resolve(false);
    if (delayMs <= 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(timer);
        resolve(true);
      }, delayMs);
      this.pending.set(timer, () => resolve(false));
    });
  }

  cancelAll(): void {
    this.stopped = true;
    for (const [timer, onCancel] of this.pending) {
      clearTimeout(timer);
      onCancel();
    }
    this.pending.clear();
  }
}
