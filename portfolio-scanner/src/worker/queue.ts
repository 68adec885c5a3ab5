// The figures behind portfolio_queue_lag_seconds and portfolio_domains_overdue (read at scrape time).
import type { NatsConnection } from '@nats-io/transport-node';
import type { Db } from 'mongodb';
import { COLLECTIONS, type CorpusDomainDoc } from '@dv/contracts';
import type { QueueFigures, ScanPriority } from './metrics.ts';
import { oldestMessage, SCAN_SUBJECTS } from './stream.ts';

/** Share of the interval a due time may lie in the past before the domain counts as overdue. */
export const OVERDUE_FRACTION = 0.1;

export async function readQueueFigures(nc: NatsConnection, db: Db, intervalS: number, now = new Date()): Promise<QueueFigures> {
  const lag = async (p: ScanPriority): Promise<number> => {
    const oldest = await oldestMessage(nc, SCAN_SUBJECTS[p]);
    return oldest ? Math.max(0, (now.getTime() - oldest.time.getTime()) / 1000) : 0;
  };
  // next_scan_at is null for domains nobody watches, so the range alone counts monitored ones (index-only).
  const overdueBefore = new Date(now.getTime() - intervalS * 1000 * OVERDUE_FRACTION);
  const [priority, rescan, overdue] = await Promise.all([
    lag('priority'),
    lag('rescan'),
    db.collection<CorpusDomainDoc>(COLLECTIONS.portfolioCorpus.name).countDocuments({ next_scan_at: { $lt: overdueBefore } }),
  ]);
  return { lagS: { priority, rescan }, overdue };
}
