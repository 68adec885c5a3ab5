import { NOTIFY_DEFAULTS } from './defaults.ts';

// The retry ladder as data plus one pure function. Attempt numbers count every try, the first
// included; the delay before attempt n+1 is `delaysS[n-1] * scale`, counted from the end of
// attempt n. When the ladder runs out the delivery gives up (null).

export interface Ladder {
  /** Seconds to wait before each retry, in order. */
  delaysS: readonly number[];
  /** Multiplies every delay (1 in production; tiny in tests). */
  scale: number;
}

export function webhookLadder(scale: number = NOTIFY_DEFAULTS.ladderScale, delaysS: readonly number[] = NOTIFY_DEFAULTS.webhookRetryDelaysS): Ladder {
  if (!(scale > 0) || !Number.isFinite(scale)) throw new RangeError('ladder scale must be a positive number');
  return { delaysS, scale };
}

/** Total attempts the ladder allows: the first try plus one per delay. */
export function maxAttempts(ladder: Ladder): number {
  return ladder.delaysS.length + 1;
}

/**
 * When attempt `attemptsMade + 1` is due after attempt `attemptsMade` failed at `failedAt`, or
 * null when no attempt is left (give up).
 */
export function nextAttemptAt(ladder: Ladder, attemptsMade: number, failedAt: Date): Date | null {
  const delayS = ladder.delaysS[attemptsMade - 1];
  if (attemptsMade < 1 || delayS === undefined) return null;
  return new Date(failedAt.getTime() + Math.round(delayS * 1000 * ladder.scale));
}
