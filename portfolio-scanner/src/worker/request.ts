// Priority scans for domains just added (the API calls this with the names addDomains answered
// `scan_now: true` for). The message id is `<domain>:<slot>`, the same the planner uses, so a
// request and a planned rescan of the same slot make one message.
import type { NatsConnection } from '@nats-io/transport-node';
import type { PortfolioScanMessage } from '@dv/contracts';
import { JetStreamPublisher } from '@dv/runtime';
import { slotOf } from '../store/schedule.ts';
import { SCAN_SUBJECTS } from './stream.ts';

export interface RequestScanOptions {
  /** PORTFOLIO_RESCAN_INTERVAL_S (the slot depends on it). */
  intervalS: number;
  now?: Date;
  fullDkimSweep?: boolean;
}

export interface RequestedScan {
  domain: string;
  slot: number;
  /** The stream already held a message with this id (same domain and slot): nothing new was queued. */
  duplicate: boolean;
}

/** Publishes one priority scan per domain; resolves once the stream stored them all (rejects otherwise). */
export async function requestScan(nc: NatsConnection, domains: readonly string[], opts: RequestScanOptions): Promise<RequestedScan[]> {
  const now = opts.now ?? new Date();
  const publisher = new JetStreamPublisher(nc);
  try {
    return await Promise.all(
      [...new Set(domains)].map(async (domain) => {
        const slot = slotOf(domain, now, opts.intervalS);
        const msg: PortfolioScanMessage = { domain, slot, reason: 'added', ...(opts.fullDkimSweep ? { full_dkim_sweep: true } : {}) };
        const ack = await publisher.publish(SCAN_SUBJECTS.priority, JSON.stringify(msg), { msgID: scanMessageId(domain, slot) });
        return { domain, slot, duplicate: ack.duplicate };
      }),
    );
  } finally {
    publisher.close();
  }
}

export function scanMessageId(domain: string, slot: number): string {
  return `${domain}:${slot}`;
}
