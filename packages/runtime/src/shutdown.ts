import type { Server } from 'node:http';
import type { Logger } from './logger.ts';

export interface ShutdownPlan {
  server: Server;
  log: Logger;
  /** Total budget; the process exits by then whatever hangs. */
  timeoutMs: number;
  /** Stop taking work (consumers, timers) and finish what is in hand. */
  stopWork: () => Promise<void>;
  /** Close connections to servers, after HTTP has drained. */
  closeConnections: () => Promise<void>;
  /** Called first, so /readyz turns 503 and long-polls can end early. */
  onBegin: () => void;
  exit?: (code: number) => void;
}

/**
 * Installs SIGTERM/SIGINT handlers. Order: mark draining, stop accepting HTTP connections, stop
 * work, let in-flight requests finish (long ones are cut at 70% of the budget), close server
 * connections, exit 0. The budget running out exits at once with 1.
 */
export function installGracefulShutdown(plan: ShutdownPlan): () => Promise<void> {
  const exit = plan.exit ?? ((code: number) => process.exit(code));
  let started = false;
  const shutdown = async (): Promise<void> => {
    if (started) return;
    started = true;
    const t0 = Date.now();
    const hardStop = setTimeout(() => {
      plan.log.error({ timeoutMs: plan.timeoutMs }, 'shutdown budget exceeded; exiting');
      exit(1);
    }, plan.timeoutMs);
    hardStop.unref();
    plan.log.info('shutdown: draining');
    plan.onBegin();
    const httpClosed = new Promise<void>((resolve) => plan.server.close(() => resolve()));
    plan.server.closeIdleConnections();
    try {
      await plan.stopWork();
    } catch (err) {
      plan.log.error({ err }, 'shutdown: stopping work failed');
    }
    const cut = setTimeout(() => plan.server.closeAllConnections(), Math.max(0, plan.timeoutMs * 0.7 - (Date.now() - t0)));
    await httpClosed;
    clearTimeout(cut);
    try {
      await plan.closeConnections();
    } catch (err) {
      plan.log.error({ err }, 'shutdown: closing connections failed');
    }
    clearTimeout(hardStop);
    plan.log.info({ ms: Date.now() - t0 }, 'shutdown: done');
    exit(0);
  };
  // A repeated signal does not cut the drain short: a terminal's Ctrl-C and a supervisor's SIGTERM
  // often arrive together, and the budget's hard stop already bounds the wait.
  const onSignal = (signal: string) => {
    if (started) {
      plan.log.info({ signal }, 'already draining; signal ignored');
      return;
    }
    void shutdown();
  };
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  process.on('SIGINT', () => onSignal('SIGINT'));
  return shutdown;
}
