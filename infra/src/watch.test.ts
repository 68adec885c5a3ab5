import { afterEach, describe, expect, it, vi } from 'vitest';
import { restartDelayMs, ServiceWatch, type WatchedProcess } from './watch.ts';

// A stand-in for a started service: `die` makes it exit on its own, `stop` as the launcher would.
class FakeProcess implements WatchedProcess {
  readonly url: string;
  readonly child: { signalCode: NodeJS.Signals | null } = { signalCode: null };
  readonly exited: Promise<number | null>;
  stops = 0;
  private resolveExit!: (code: number | null) => void;
  constructor(n: number) {
    this.url = `http://127.0.0.1:1/${n}`;
    this.exited = new Promise((r) => (this.resolveExit = r));
  }
  die(signal: NodeJS.Signals | null, code: number | null = null): void {
    this.child.signalCode = signal;
    this.resolveExit(code);
  }
  async stop(): Promise<number | null> {
    this.stops++;
    this.resolveExit(0);
    return 0;
  }
}

function harness(startFails: (n: number) => boolean = () => false) {
  const procs: FakeProcess[] = [];
  const lines: string[] = [];
  const gaveUp: string[] = [];
  let n = 0;
  const start = async () => {
    n++;
    if (startFails(n)) throw new Error(`lookup exited with code 78 before listening:\nbad config`);
    const p = new FakeProcess(n);
    procs.push(p);
    return p;
  };
  return { procs, lines, gaveUp, starts: () => n, opts: { name: 'lookup', start, say: (m: string) => lines.push(m), onGiveUp: (r: string) => gaveUp.push(r), logFile: '/x/lookup.log', backoffInitialMs: 1_000, backoffMaxMs: 4_000, maxFailures: 4, failureWindowMs: 60_000 } };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('restartDelayMs', () => {
  it.each([
    [1, 1_000],
    [2, 2_000],
    [3, 4_000],
    [4, 8_000],
    [6, 30_000],
    [20, 30_000],
  ])('after %i recent failures waits %i ms (doubling, capped at 30 s)', (failures, ms) => {
    expect(restartDelayMs(failures, 1_000, 30_000)).toBe(ms);
  });
});

describe('ServiceWatch', () => {
  it('reports an exit at once and restarts after a pause that doubles, capped', async () => {
    vi.useFakeTimers();
    const h = harness();
    const watch = await ServiceWatch.start(h.opts);
    h.procs[0]!.die('SIGKILL');
    await vi.advanceTimersByTimeAsync(0);
    expect(h.lines).toEqual(['lookup killed by SIGKILL; restarting it in 1 s (failure 1 of 4 allowed within 60 s) (log: /x/lookup.log)']);
    await vi.advanceTimersByTimeAsync(999);
    expect(h.starts()).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(h.starts()).toBe(2);
    expect(h.lines.at(-1)).toBe('lookup is back: http://127.0.0.1:1/2');
    expect(watch.url).toBe('http://127.0.0.1:1/2');

    h.procs[1]!.die(null, 1);
    await vi.advanceTimersByTimeAsync(0);
    expect(h.lines.at(-1)).toMatch(/^lookup exited with code 1; restarting it in 2 s \(failure 2 of 4/);
    await vi.advanceTimersByTimeAsync(2_000);
    h.procs[2]!.die('SIGKILL');
    await vi.advanceTimersByTimeAsync(0);
    expect(h.lines.at(-1)).toMatch(/restarting it in 4 s \(failure 3 of 4/);
    expect(h.gaveUp).toEqual([]);
    await watch.stop();
  });

  it('caps the pause at the maximum', async () => {
    vi.useFakeTimers();
    const h = harness();
    h.opts.maxFailures = 10;
    const watch = await ServiceWatch.start(h.opts);
    for (let i = 0; i < 5; i++) {
      h.procs[i]!.die('SIGKILL');
      await vi.advanceTimersByTimeAsync(0);
      await vi.advanceTimersByTimeAsync(4_000);
    }
    const pauses = h.lines.filter((l) => l.includes('restarting')).map((l) => /in (\d+) s/.exec(l)?.[1]);
    expect(pauses).toEqual(['1', '2', '4', '4', '4']);
    await watch.stop();
  });

  it('gives up after maxFailures within the window, counting failed restarts, and starts nothing more', async () => {
    vi.useFakeTimers();
    // Start 1 works; every restart fails as a service with bad config would.
    const h = harness((n) => n > 1);
    await ServiceWatch.start(h.opts);
    h.procs[0]!.die('SIGKILL');
    await vi.advanceTimersByTimeAsync(0);
    await vi.advanceTimersByTimeAsync(1_000 + 2_000 + 4_000);
    expect(h.starts()).toBe(4);
    expect(h.lines.filter((l) => l.startsWith('lookup did not restart: lookup exited with code 78 before listening'))).toHaveLength(3);
    expect(h.gaveUp).toEqual(['lookup failed 4 times within 60 s; giving up (log: /x/lookup.log)']);
    await vi.advanceTimersByTimeAsync(120_000);
    expect(h.starts()).toBe(4);
  });

  it('forgets failures older than the window', async () => {
    vi.useFakeTimers();
    const h = harness();
    h.opts.maxFailures = 2;
    const watch = await ServiceWatch.start(h.opts);
    h.procs[0]!.die('SIGKILL');
    await vi.advanceTimersByTimeAsync(61_000);
    h.procs[1]!.die('SIGKILL');
    await vi.advanceTimersByTimeAsync(0);
    expect(h.gaveUp).toEqual([]);
    expect(h.lines.at(-1)).toMatch(/restarting it in 1 s \(failure 1 of 2/);
    await watch.stop();
  });

  it('a stop during the pause cancels the restart, and an exit caused by stop is not reported', async () => {
    vi.useFakeTimers();
    const h = harness();
    const watch = await ServiceWatch.start(h.opts);
    h.procs[0]!.die('SIGKILL');
    await vi.advanceTimersByTimeAsync(0);
    await watch.stop();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(h.starts()).toBe(1);

    const h2 = harness();
    const watch2 = await ServiceWatch.start(h2.opts);
    await watch2.stop();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(h2.procs[0]!.stops).toBe(1);
    expect(h2.lines).toEqual([]);
    expect(h2.starts()).toBe(1);
  });
});
