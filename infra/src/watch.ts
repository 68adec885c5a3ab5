// The launcher's watch over one service: an exit it did not ask for is reported at once, the
// service is started again after a growing pause, and a service that keeps dying makes the launcher
// give up (the caller then stops everything) rather than restart it forever.
import { RESTART_BACKOFF_INITIAL_MS, RESTART_BACKOFF_MAX_MS, RESTART_FAILURE_WINDOW_MS, RESTART_MAX_FAILURES } from './defaults.ts';

/** What the watch needs of a started service (RunningProcess has it; tests pass fakes). */
export interface WatchedProcess {
  readonly url: string;
  readonly exited: Promise<number | null>;
  readonly child: { readonly signalCode: NodeJS.Signals | null };
  stop(): Promise<number | null>;
}

export interface WatchOptions<P extends WatchedProcess> {
  name: string;
  /** Starts the service and resolves once it is ready (rejects when it cannot start). */
  start: () => Promise<P>;
  /** Console line: an exit, a restart, a failed restart. */
  say: (msg: string) => void;
  /** Called once when the service failed `maxFailures` times within `failureWindowMs`. */
  onGiveUp: (reason: string) => void;
  /** Where the service logs, named in the messages. */
  logFile?: string;
  backoffInitialMs?: number;
  backoffMaxMs?: number;
  maxFailures?: number;
  failureWindowMs?: number;
  now?: () => number;
}

/** Pause before the next start after `recentFailures` (≥ 1) failures: doubling, capped. */
export function restartDelayMs(recentFailures: number, initialMs = RESTART_BACKOFF_INITIAL_MS, maxMs = RESTART_BACKOFF_MAX_MS): number {
  return Math.min(initialMs * 2 ** Math.max(0, recentFailures - 1), maxMs);
}

export class ServiceWatch<P extends WatchedProcess> {
  private current: P | undefined;
  private failures: number[] = [];
  private timer: NodeJS.Timeout | undefined;
  private starting: Promise<void> | undefined;
  private stopped = false;
  private readonly opts: Required<Omit<WatchOptions<P>, 'logFile'>> & { logFile?: string };

  private constructor(opts: WatchOptions<P>) {
    this.opts = {
      backoffInitialMs: RESTART_BACKOFF_INITIAL_MS,
      backoffMaxMs: RESTART_BACKOFF_MAX_MS,
      maxFailures: RESTART_MAX_FAILURES,
      failureWindowMs: RESTART_FAILURE_WINDOW_MS,
      now: Date.now,
      ...opts,
    };
  }

  /** Starts the service the first time (a failure here is the caller's: it rejects) and watches it. */
  static async start<P extends WatchedProcess>(opts: WatchOptions<P>): Promise<ServiceWatch<P>> {
    const watch = new ServiceWatch(opts);
    watch.adopt(await opts.start());
    return watch;
  }

  get name(): string {
    return this.opts.name;
  }

  get process(): P | undefined {
    return this.current;
  }

  get url(): string {
    return this.current?.url ?? '';
  }

  /** Restart attempts that failed or exits counted in the current window (for tests and messages). */
  get recentFailures(): number {
    return this.failures.length;
  }

  /** Stops watching, cancels a pending restart and stops the service (waits for a start under way). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.starting;
    await this.current?.stop();
  }

  private adopt(proc: P): void {
    this.current = proc;
    void proc.exited.then((code) => {
      if (this.stopped || this.current !== proc) return;
      const how = proc.child.signalCode ? `killed by ${proc.child.signalCode}` : `exited with code ${code}`;
      this.failed(`${this.opts.name} ${how}`);
    });
  }

  private failed(what: string): void {
    const { name, maxFailures, failureWindowMs, now, say } = this.opts;
    const t = now();
    this.failures = [...this.failures.filter((at) => t - at < failureWindowMs), t];
    const where = this.opts.logFile ? ` (log: ${this.opts.logFile})` : '';
    if (this.failures.length >= maxFailures) {
      say(`${what}${where}`);
      this.stopped = true;
      this.opts.onGiveUp(`${name} failed ${this.failures.length} times within ${Math.round(failureWindowMs / 1_000)} s; giving up${where}`);
      return;
    }
    const delayMs = restartDelayMs(this.failures.length, this.opts.backoffInitialMs, this.opts.backoffMaxMs);
    say(`${what}; restarting it in ${formatMs(delayMs)} (failure ${this.failures.length} of ${maxFailures} allowed within ${Math.round(failureWindowMs / 1_000)} s)${where}`);
    this.timer = setTimeout(() => {
      this.starting = this.restart();
    }, delayMs);
  }

  private async restart(): Promise<void> {
    if (this.stopped) return;
    try {
      const proc = await this.opts.start();
      if (this.stopped) {
        await proc.stop();
        return;
      }
      this.opts.say(`${this.opts.name} is back: ${proc.url}`);
      this.adopt(proc);
    } catch (err) {
      if (!this.stopped) this.failed(`${this.opts.name} did not restart: ${firstLine((err as Error).message)}`);
    } finally {
      this.starting = undefined;
    }
  }
}

function formatMs(ms: number): string {
  return ms < 1_000 ? `${ms} ms` : `${(ms / 1_000).toFixed(ms % 1_000 === 0 ? 0 : 1)} s`;
}

function firstLine(msg: string): string {
  return msg.split('\n', 1)[0] ?? msg;
}
