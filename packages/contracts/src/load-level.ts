// What "busy" and "saturated" mean, written once for every service that says it: the scheduler's
// load figures (LOAD bucket) and the gateway's fallback when those figures are missing both call
// loadLevelOf, so GET /v1/status and the 202 queue info never disagree on the words. The
// thresholds are the defaults of the scheduler's LOAD_* settings.
import type { LoadLevel } from './messages.ts';

export interface LoadLevelThresholds {
  /** Expected wait of a new single check (seconds) at which load turns busy / saturated. */
  busySeconds: number;
  saturatedSeconds: number;
  /** Share of probe capacity in use at which load turns busy / saturated. */
  busyCapacity: number;
  saturatedCapacity: number;
}

export const LOAD_LEVEL_THRESHOLDS: LoadLevelThresholds = { busySeconds: 10, saturatedSeconds: 60, busyCapacity: 0.7, saturatedCapacity: 0.95 };

export interface LoadSignals {
  /** Expected seconds until a new single check is answered. */
  secondsPerSingle: number;
  /** Share of probe capacity in use; null when the caller cannot know it (the gateway's fallback). */
  utilisation: number | null;
  /** No probe node is alive: live checks cannot progress at all. */
  stalled: boolean;
}

/**
 * First rule that applies: saturated when stalled, or a new single check would wait
 * `saturatedSeconds` or more, or `saturatedCapacity` of probe capacity is in use; busy at
 * `busySeconds` or `busyCapacity`; normal otherwise.
 */
export function loadLevelOf(s: LoadSignals, t: LoadLevelThresholds = LOAD_LEVEL_THRESHOLDS): LoadLevel {
  const use = s.utilisation ?? 0;
  if (s.stalled || s.secondsPerSingle >= t.saturatedSeconds || use >= t.saturatedCapacity) return 'saturated';
  if (s.secondsPerSingle >= t.busySeconds || use >= t.busyCapacity) return 'busy';
  return 'normal';
}
