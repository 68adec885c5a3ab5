import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import { SUBJECTS } from '@dv/contracts';

// Long-polls (the `wait` parameter, docs/gateway.md): every gateway replica subscribes once to `verify.done.>` on core
// NATS, so a client waiting on any replica wakes when the scheduler finishes the job, wherever
// the job was created. A waiter registers before it reads the job, so a finish between the read
// and the wait is never missed.

export class DoneWaiter {
  private readonly waiters = new Map<string, Set<() => void>>();
  private sub: Subscription | undefined;
  private readonly nc: NatsConnection;

  constructor(nc: NatsConnection) {
    this.nc = nc;
  }

  start(): void {
    const prefix = SUBJECTS.verifyDone('');
    this.sub = this.nc.subscribe(SUBJECTS.verifyDoneAll, {
      callback: (err, msg) => {
        if (err) return;
        const jobId = msg.subject.slice(prefix.length);
        const set = this.waiters.get(jobId);
        if (!set) return;
        this.waiters.delete(jobId);
        for (const wake of set) wake();
      },
    });
  }

  async stop(): Promise<void> {
    this.sub?.unsubscribe();
    for (const set of this.waiters.values()) for (const wake of set) wake();
    this.waiters.clear();
  }

  /** How many requests are waiting (metrics). */
  get size(): number {
    let n = 0;
    for (const s of this.waiters.values()) n += s.size;
    return n;
  }

  /**
   * Registers interest in `jobId` now and returns a promise-maker: `wait(ms)` resolves true when
   * the job's done message arrives within `ms`, false on timeout or abort.
   */
  register(jobId: string, signal?: AbortSignal): { wait: (ms: number) => Promise<boolean>; cancel: () => void } {
    let woken = false;
    let resolveFn: ((v: boolean) => void) | undefined;
    const wake = () => {
      woken = true;
      resolveFn?.(true);
    };
    let set = this.waiters.get(jobId);
    if (!set) this.waiters.set(jobId, (set = new Set()));
    set.add(wake);
    const cancel = () => {
      const s = this.waiters.get(jobId);
      s?.delete(wake);
      if (s && s.size === 0) this.waiters.delete(jobId);
    };
    const wait = (ms: number) =>
      new Promise<boolean>((resolve) => {
        if (woken) return resolve(true);
        if (ms <= 0 || signal?.aborted) {
          cancel();
          return resolve(false);
        }
        const done = (v: boolean) => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          cancel();
          resolve(v);
        };
        const onAbort = () => done(false);
        const timer = setTimeout(() => done(false), ms);
        resolveFn = done;
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    return { wait, cancel };
  }
}
