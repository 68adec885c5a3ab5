// Durable waits: an item that must wait (greylist ladder, a long provider pause) is stored as
// `waiting_retry` with `next_attempt_at` and its message is acked; the retry sweep re-enqueues it
// when due. So a restart (or a crash of this replica) loses no waiting item.
import type { Db } from 'mongodb';
import { COLLECTIONS, type JobItemDoc } from '@dv/contracts';
import { ackHeld, releaseHeld, type HeldItem } from './held.ts';

export interface ParkInfo {
  dueAt: Date;
  attempts: number;
  firstAttemptAt: Date | null;
  sourceIp: string | null;
  probeNode: string | null;
}

export async function parkItem(db: Db, h: HeldItem, info: ParkInfo): Promise<void> {
  try {
    await db.collection<JobItemDoc>(COLLECTIONS.jobItems.name).updateOne(
      { _id: h.item._id, state: { $in: ['queued', 'waiting_retry'] } },
      {
        $set: {
          state: 'waiting_retry',
          next_attempt_at: info.dueAt,
          attempts: info.attempts,
          first_attempt_at: info.firstAttemptAt,
          source_ip: info.sourceIp,
          probe_node: info.probeNode,
          updated_at: new Date(),
        },
      },
    );
    // No match: canceled or already done meanwhile; either way nothing is left to do here.
    ackHeld(h);
  } catch {
    releaseHeld(h, 1_000);
  }
}
