// Reads of the PORTFOLIO stream itself (not through a consumer): the oldest message of a subject
// (queue lag) and whether a given message is still stored (the planner's lost-message check).
// Raw `$JS.API.STREAM.MSG.GET` requests, because nats.js only offers `next_by_subj` through direct
// gets, which need `allow_direct` on the stream; the API request answers it on nats-server 2.9.
import type { NatsConnection } from '@nats-io/transport-node';
import { SUBJECTS } from '@dv/contracts';
import type { ScanPriority } from './metrics.ts';

export const PORTFOLIO_STREAM = 'PORTFOLIO';

export const SCAN_SUBJECTS: Record<ScanPriority, string> = {
  priority: SUBJECTS.portfolioScanPriority,
  rescan: SUBJECTS.portfolioScanRescan,
};

export interface StoredMessage {
  seq: number;
  subject: string;
  time: Date;
}

interface MsgGetReply {
  message?: { seq: number; subject: string; time: string };
  error?: { code: number; description?: string };
}

type MsgGet = { seq: number } | { seq: number; next_by_subj: string };

/** The message, or null when the stream holds none matching (404); other errors throw. */
export async function getStreamMessage(nc: NatsConnection, req: MsgGet, stream = PORTFOLIO_STREAM, timeoutMs = 2_000): Promise<StoredMessage | null> {
  const reply = (await nc.request(`$JS.API.STREAM.MSG.GET.${stream}`, JSON.stringify(req), { timeout: timeoutMs })).json<MsgGetReply>();
  if (reply.error) {
    if (reply.error.code === 404) return null;
    throw new Error(`stream message read failed: ${reply.error.code} ${reply.error.description ?? ''}`);
  }
  if (!reply.message) return null;
  return { seq: reply.message.seq, subject: reply.message.subject, time: new Date(reply.message.time) };
}

/** The oldest message still in the stream on a subject: in a work queue, the oldest not yet acked. */
export function oldestMessage(nc: NatsConnection, subject: string, stream = PORTFOLIO_STREAM): Promise<StoredMessage | null> {
  return getStreamMessage(nc, { seq: 0, next_by_subj: subject }, stream);
}
