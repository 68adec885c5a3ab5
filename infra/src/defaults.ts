// Tunables of the local launcher (`npm start` / `npm run demo`); durations carry their unit.

/** First wait before restarting a service that exited on its own; doubles with each recent failure. */
export const RESTART_BACKOFF_INITIAL_MS = 1_000;
/** Longest wait between restarts, however many failures came before. */
export const RESTART_BACKOFF_MAX_MS = 30_000;
/**
 * This many exits (or failed restarts) of one service within RESTART_FAILURE_WINDOW_MS and the
 * launcher gives up and stops everything: a service that keeps dying is broken, and restarting it
 * forever would hide that behind a console full of restarts.
 */
export const RESTART_MAX_FAILURES = 5;
export const RESTART_FAILURE_WINDOW_MS = 120_000;
