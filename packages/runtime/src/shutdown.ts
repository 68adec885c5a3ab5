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
  /** Called first, so /readyz turns 503 (requests are still served normally). */
  onBegin: () => void;
  /**
   * SHUTDOWN_DELAY_MS: how long readiness stays off before the listener closes, so load balancers
   * that poll /readyz stop sending here first (requests arriving meanwhile are served). Not part
   * of `timeoutMs`. Default 0.
   */
  delayMs?: number;
  /** Called after the delay, when draining starts: long-polls end early. */
  onDrain?: () => void;
  exit?: (code: number) => void;
}

/**
 * Installs SIGTERM/SIGINT handlers. Order: readiness off, wait `delayMs` (still serving), stop
 * accepting HTTP connections, stop work, let in-flight requests finish (long ones are cut at 70% of
 * the budget), close server connections, exit 0. The budget (counted after the delay) running out
 * exits at once with 1.
 */
export function installGracefulShutdown(plan: ShutdownPlan): () => Promise<void> {
  const exit = plan.exit ?? ((code: number) => process.exit(code));
  let started = false;
  const shutdown = async (): Promise<void> => {
    if (started) return;
    started = true;
    plan.onBegin();
    if (plan.delayMs && plan.delayMs > 0) {
      plan.log.info({ delayMs: plan.delayMs }, 'shutdown: readiness off; waiting before closing the listener');
      await new Promise((r) => setTimeout(r, plan.delayMs));
    }
    const t0 = Date.now();
    const hardStop = setTimeout(() => {
      plan.log.error({ timeoutMs: plan.timeoutMs }, 'shutdown budget exceeded; exiting');
      exit(1);
    }, plan.timeoutMs);
    hardStop.unref();
    plan.log.info('shutdown: draining');
    plan.onDrain?.();
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

/**
 * An exception that no request, stream or timer caught (or a rejection nobody awaited; Node hands
 * those here too) leaves the process in a state nobody reasoned about, so it is not kept running:
 * one fatal JSON line with the error and its origin, then exit 1 at once, without draining. The
 * supervisor restarts the process and JetStream redelivers what it had not acknowledged. No input
 * should ever get here: every socket, stream and timer callback turns its failure into its own
 * caller's error.
 */
export function installFatalHandlers(log: Logger, exit: (code: number) => void = (code) => process.exit(code)): void {
  process.on('uncaughtException', (err, origin) => {
    log.fatal({ err, origin }, 'uncaught exception; exiting');
    exit(1);
  });
}
