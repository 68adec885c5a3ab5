// Pure load figures: from queue depths, throughput and probe capacity to the level and the seconds
// a caller should expect (published for gateways: 202 queue info and GET /v1/status).
import type { LoadFigures, LoadLevel } from '@dv/contracts';

export interface LoadInput {
  queueSingle: number;
  queueList: number;
  /** Items finished per second, all replicas (moving average). */
  throughputPerS: number;
  capacityTotal: number;
  capacityInUse: number;
}

export interface LoadThresholds {
  busySeconds: number;
  saturatedSeconds: number;
  busyCapacity: number;
  saturatedCapacity: number;
  idleSecondsPerSingle: number;
}

/**
 * Level rules (first that applies):
 * - saturated: work is waiting and no probe node is up; or a new single check would wait
 *   `saturatedSeconds` or more; or `saturatedCapacity` of probe capacity is in use;
 * - busy: a new single check would wait `busySeconds` or more; or `busyCapacity` is in use;
 * - normal otherwise.
 * Single checks are served before list items, so only single checks queue ahead of a new one.
 */
export function computeLoad(input: LoadInput, t: LoadThresholds, at: Date): LoadFigures {
  const queued = input.queueSingle + input.queueList;
  // Before any throughput is measured, assume one item per second per free session: conservative
  // enough that an empty system reads normal and a deep queue on a cold start reads busy.
  const rate = input.throughputPerS > 0.01 ? input.throughputPerS : Math.max(1, input.capacityTotal - input.capacityInUse);
  const secondsPerSingle = t.idleSecondsPerSingle + input.queueSingle / rate;
  const secondsPer1000 = (queued + 1000) / rate;
  const utilisation = input.capacityTotal > 0 ? input.capacityInUse / input.capacityTotal : 1;
  let load: LoadLevel = 'normal';
  if ((queued > 0 && input.capacityTotal === 0) || secondsPerSingle >= t.saturatedSeconds || utilisation >= t.saturatedCapacity) load = 'saturated';
  else if (secondsPerSingle >= t.busySeconds || utilisation >= t.busyCapacity) load = 'busy';
  return {
    load,
    queue: { single: Math.max(0, Math.round(input.queueSingle)), list: Math.max(0, Math.round(input.queueList)) },
    throughput_per_s: round(Math.max(0, input.throughputPerS)),
    probe_capacity: { total: input.capacityTotal, in_use: Math.min(input.capacityInUse, input.capacityTotal) },
    seconds_per_single: round(secondsPerSingle),
    seconds_per_1000: round(secondsPer1000),
    at: at.toISOString(),
  };
}

const round = (n: number) => Math.round(n * 100) / 100;
