import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from './logger.ts';
import { installGracefulShutdown, type ShutdownPlan } from './shutdown.ts';

// The order of a SIGTERM'd process's shutdown, on a real HTTP server: readiness off first, requests
// still served during SHUTDOWN_DELAY_MS, then the listener closes, work stops, connections close.
let server: Server | undefined;
afterEach(() => {
  server?.close();
  process.removeAllListeners('SIGTERM');
  process.removeAllListeners('SIGINT');
});

async function listen(handler: (ready: () => boolean) => (req: unknown, res: { end(s: string): void }) => void, ready: () => boolean): Promise<string> {
  server = createServer(handler(ready) as never);
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** The plan on the test's server (silent log, 5 s timeout); `exitCode` settles with the code the process would exit with. */
function install(plan: Omit<ShutdownPlan, 'server' | 'log' | 'timeoutMs' | 'exit'>): { shutdown: () => Promise<void>; exitCode: Promise<number> } {
  let exited!: (code: number) => void;
  const exitCode = new Promise<number>((r) => (exited = r));
  const shutdown = installGracefulShutdown({ server: server!, log: createLogger('test', 'silent'), timeoutMs: 5_000, ...plan, exit: (code) => exited(code) });
  return { shutdown, exitCode };
}

describe('installGracefulShutdown', () => {
  it('turns readiness off, keeps serving for the delay, then closes the listener and exits 0', async () => {
    const events: string[] = [];
    let draining = false;
    let releaseDelay!: () => void;
    const inDelay = new Promise<void>((r) => (releaseDelay = r));
    const url = await listen((ready) => (_req, res) => res.end(ready() ? 'ready' : 'draining'), () => !draining);
    const { shutdown, exitCode } = install({
      delayMs: 2_000,
      onBegin: () => {
        draining = true;
        events.push('readiness off');
        releaseDelay();
      },
      onDrain: () => events.push('drain'),
      stopWork: async () => {
        events.push('stop work');
      },
      closeConnections: async () => {
        events.push('close connections');
      },
    });
    const done = shutdown();
    await inDelay;
    // During the delay the listener still takes new connections and answers, saying it is draining.
    expect(await (await fetch(url)).text()).toBe('draining');
    expect(events).toEqual(['readiness off']);
    expect(await exitCode).toBe(0);
    await done;
    expect(events).toEqual(['readiness off', 'drain', 'stop work', 'close connections']);
    await expect(fetch(url)).rejects.toThrow();
  });

  it('with no delay, drains at once', async () => {
    const events: string[] = [];
    await listen(() => (_req, res) => res.end('x'), () => true);
    const { shutdown, exitCode } = install({
      onBegin: () => events.push('readiness off'),
      onDrain: () => events.push('drain'),
      stopWork: async () => undefined,
      closeConnections: async () => undefined,
    });
    void shutdown();
    expect(await exitCode).toBe(0);
    expect(events).toEqual(['readiness off', 'drain']);
  });
});
