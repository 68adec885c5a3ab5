import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOSTILE_CASES, startHostileServer, type HostileCase, type HostileServer } from '@dv/test-kit/hostile-http';
import { deliverOnce, type DeliveryOutcome } from './deliver.ts';
import { checkTarget } from './target.ts';

// Webhook deliveries to a receiver that answers hostilely: each ends as a DeliveryResult within
// its deadline (never a throw, never an uncaught exception in this process), and memory stays
// bounded. A 2xx status is a delivery whatever the body does next: the receiver said it took it.

const OUTCOME: Record<HostileCase, DeliveryOutcome> = {
  ok: 'delivered',
  'bad-status-line': 'network',
  'bad-status-code': 'network',
  'broken-chunked': 'delivered',
  'invalid-utf8': 'delivered',
  'huge-headers': 'network',
  'slow-drip': 'delivered',
  'slow-headers': 'timeout',
  'reset-mid-body': 'delivered',
  'gzip-bomb': 'delivered',
  'bad-location': 'redirect',
  'bad-content-length': 'network',
};

let hostile: HostileServer;
beforeAll(async () => {
  hostile = await startHostileServer();
});
afterAll(async () => hostile?.close());

describe('webhook delivery to a hostile receiver', () => {
  it('every case ends as a result within the deadline, with memory bounded', async () => {
    // Slack for a loaded 2-core CI machine; an unbounded drip or an inflated bomb is far past both.
    const before = process.memoryUsage().rss;
    const timeoutMs = 1_500;
    const results = await Promise.all(
      HOSTILE_CASES.map(async (c) => {
        const target = await checkTarget(`${hostile.url}/${c}/hook`, { allowHttpLoopback: true });
        if (!target.ok) throw new Error(`target refused: ${target.detail}`);
        return { c, r: await deliverOnce(target, '{"id":"evt_1"}', 'whsec_hostile', { timeoutMs, maxResponseBytes: 64 * 1024 }) };
      }),
    );
    for (const { c, r } of results) {
      expect(r.outcome, `${c}: ${r.error}`).toBe(OUTCOME[c]);
      expect(r.durationMs, c).toBeLessThan(timeoutMs + 5_000);
      expect(r.responseBytes, c).toBeLessThanOrEqual(64 * 1024);
      if (!r.delivered) expect(r.error, c).toBeTruthy();
      expect(hostile.hits.get(c), c).toBeGreaterThan(0);
    }
    expect(process.memoryUsage().rss - before).toBeLessThan(200 * 1024 * 1024);
  });
});
