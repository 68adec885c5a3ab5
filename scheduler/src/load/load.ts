// Pure load figures: from queue depths, throughput and probe capacity to the level and the seconds
// a caller should expect (published for gateways: 202 queue info and GET /v1/status).
import { loadLevelOf, type LoadFigures, type LoadLevelThresholds } from '@dv/contracts';

export interface LoadInput {
  /** Ready to run: JetStream pending of each priority. */
  queueSingle: number;
  queueList: number;
  /** Parked for a later attempt (greylisting, pauses), by the queue they came from. */
  parkedSingle: number;
  parkedList: number;
  /** Items finished per second, all replicas (moving average). */
  throughputPerS: number;
  capacityTotal: number;
  capacityInUse: number;
}

export interface LoadThresholds extends LoadLevelThresholds {
  idleSecondsPerSingle: number;
}

/**
 * The level is @dv/contracts' loadLevelOf (one definition of busy and saturated, the gateway's
 * fallback uses it too) over the expected wait of a new single check, the share of probe capacity
 * in use, and whether any probe node is alive. Single checks are served before list items, so
 * only single checks queue ahead of a new one.
 */
export function computeLoad(input: LoadInput, t: LoadThresholds, at: Date): LoadFigures {
  // A parked item waits for its time, not for capacity: it is not ahead of a new single check,
  // but it is work of its own queue (a greylisted single check is still a single check).
  const queued = input.queueSingle + input.queueList + input.parkedSingle + input.parkedList;
  // Before any throughput is measured, assume one item per second per free session: conservative
  // enough that an empty system reads normal and a deep queue on a cold start reads busy.
  const rate = input.throughputPerS > 0.01 ? input.throughputPerS : Math.max(1, input.capacityTotal - input.capacityInUse);
  const secondsPerSingle = t.idleSecondsPerSingle + input.queueSingle / rate;
  const secondsPer1000 = (queued + 1000) / rate;
  const utilisation = input.capacityTotal > 0 ? input.capacityInUse / input.capacityTotal : 1;
  // No probe node alive: no live check can progress, so no estimate would be honest.
  const stalled = input.capacityTotal === 0;
  const load = loadLevelOf({ secondsPerSingle, utilisation, stalled }, t);
  return {
    load,
    queue: { single: Math.max(0, Math.round(input.queueSingle + input.parkedSingle)), list: Math.max(0, Math.round(input.queueList + input.parkedList)) },
    throughput_per_s: round(Math.max(0, input.throughputPerS)),
    probe_capacity: { total: input.capacityTotal, in_use: Math.min(input.capacityInUse, input.capacityTotal) },
    seconds_per_single: stalled ? null : round(secondsPerSingle),
    seconds_per_1000: stalled ? null : round(secondsPer1000),
    reason: stalled ? 'no_probe_capacity' : null,
    at: at.toISOString(),
  };
}

/**
 * Smooths the expected seconds between two ticks, in log space with half-life `halfLifeMs`: a
 * queue that empties in one second, or a throughput window that caught a burst, must not make the
 * figures a client polls swing by orders of magnitude from one poll to the next, while a real
 * change still shows within a few half-lives. Level, queue and capacity stay raw. A figure
 * that was null (no capacity) starts again from the raw value.
 */
export function smoothLoad(prev: LoadFigures | null, next: LoadFigures, halfLifeMs: number): LoadFigures {
  if (!prev || halfLifeMs <= 0) return next;
  const dt = Date.parse(next.at) - Date.parse(prev.at);
  if (!(dt > 0)) return next;
  const alpha = 1 - 2 ** (-dt / halfLifeMs);
  const blend = (a: number | null, b: number | null): number | null => {
    if (a === null || b === null || a <= 0 || b <= 0) return b;
    return round(Math.exp(Math.log(a) + alpha * (Math.log(b) - Math.log(a))));
  };
  return { ...next, seconds_per_single: blend(prev.seconds_per_single, next.seconds_per_single), seconds_per_1000: blend(prev.seconds_per_1000, next.seconds_per_1000) };
}

const round = (n: number) => Math.round(n * 100) / 100;
