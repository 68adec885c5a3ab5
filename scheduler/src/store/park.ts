// Durable waits: an item that must wait (greylist ladder, a long provider pause) is stored as
// `waiting_retry` with `next_attempt_at` and its message is acked; the retry sweep re-enqueues it
// when due. So a restart (or a crash of this replica) loses no waiting item.
import type { Db } from 'mongodb';
import { COLLECTIONS, type JobItemDoc } from '@dv/contracts';
import { ackHeld, releaseHeld, type HeldItem } from '../intake/held-item.ts';

export interface ParkInfo {
  dueAt: Date;
  attempts: number;
  firstAttemptAt: Date | null;
  sourceIp: string | null;
  probeNode: string | null;
}

export interface Park {
  h: HeldItem;
  info: ParkInfo;
}

/**
 * Parks several items with one bulk write (a session's greylisted addresses, a batch facing a long
 * pause): one round trip to MongoDB instead of one each. Acked only once the write is done.
 */
export async function parkItems(db: Db, parks: readonly Park[]): Promise<void> {
  if (parks.length === 0) return;
  try {
    const now = new Date();
    await db.collection<JobItemDoc>(COLLECTIONS.jobItems.name).bulkWrite(
      parks.map(({ h, info }) => ({
        updateOne: {
          filter: { _id: h.item._id, state: { $in: ['queued', 'waiting_retry'] as JobItemDoc['state'][] } },
          update: {
            $set: {
              state: 'waiting_retry' as const,
              next_attempt_at: info.dueAt,
              attempts: info.attempts,
              first_attempt_at: info.firstAttemptAt,
              source_ip: info.sourceIp,
              probe_node: info.probeNode,
              priority: h.priority,
              updated_at: now,
            },
          },
        },
      })),
      { ordered: false },
    );
    // No match: canceled or already done meanwhile; either way nothing is left to do here.
    for (const { h } of parks) ackHeld(h);
  } catch {
    for (const { h } of parks) releaseHeld(h, 1_000);
  }
}
