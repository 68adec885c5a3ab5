import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '@dv/test-kit';
import { outcome } from '../store/fixtures.ts';
import { slotOf, storeScan } from '../store/index.ts';
import { cachedDashboardSummary, dashboardSummary, invalidateSummary } from './summary.ts';
import { INTERVAL_S, startHarness, type Harness } from './testing/harness.ts';

// The summary snapshot: served while fresh, recomputed in the background once stale, computed
// afresh after a write through the API (invalidateSummary), shared by replicas through Redis.

let h: Harness;
let a: { accountId: string; key: string };
const HOUR = 3_600_000;

async function scan(domain: string, fields: Parameters<typeof outcome>[1], at = new Date()) {
  await storeScan(h.db, domain, slotOf(domain, at, INTERVAL_S), outcome(at, fields), { intervalS: INTERVAL_S, now: at });
}

beforeAll(async () => {
  h = await startHarness('psummarycache');
  a = await h.account('enterprise');
  await h.call('POST', '/api/v1/domains/', { key: a.key, body: { domains: ['s1.example.test', 's2.example.test'] } });
  await scan('s1.example.test', { dmarc_policy_p: 'reject' }, new Date(Date.now() - HOUR));
});
afterAll(async () => h?.close());

describe('dashboard summary snapshot', () => {
  it('serves the snapshot while fresh; a write through the API shows at once; a stale one is refreshed in the background', async () => {
    const first = (await h.call('GET', '/api/v1/dashboard/summary/', { key: a.key })).body.data;
    expect(first.dmarc_distribution.reject.count).toBe(1);
    // A scan lands: the fresh snapshot does not show it yet...
    await scan('s2.example.test', { dmarc_policy_p: 'reject' });
    expect((await cachedDashboardSummary(h.db, h.redis, a.accountId, 600_000)).dmarc_distribution.reject.count).toBe(1);
    // ...once stale, the stale one is served and a fresh one computed for the next reads.
    expect((await cachedDashboardSummary(h.db, h.redis, a.accountId, 0)).dmarc_distribution.reject.count).toBe(1);
    await until(async () => (await cachedDashboardSummary(h.db, h.redis, a.accountId, 600_000)).dmarc_distribution.reject.count === 2 || null, 10_000, 'background refresh');
    // Removing a domain through the API: the next read matches the list.
    await h.call('DELETE', '/api/v1/domains/2/', { key: a.key });
    const after = (await h.call('GET', '/api/v1/dashboard/summary/', { key: a.key })).body.data;
    expect(after.total_domains).toBe(1);
    expect(after).toEqual(await dashboardSummary(h.db, a.accountId));
    const list = (await h.call('GET', '/api/v1/domains/', { key: a.key })).body;
    expect(list.meta.total_count).toBe(after.total_domains);
  });

  it('invalidateSummary makes the next read compute afresh', async () => {
    await cachedDashboardSummary(h.db, h.redis, a.accountId, 600_000);
    await scan('s1.example.test', { dmarc_policy_p: 'quarantine', dmarc: 'v=DMARC1; p=quarantine' }, new Date(Date.now() + 2 * INTERVAL_S * 1000));
    expect((await cachedDashboardSummary(h.db, h.redis, a.accountId, 600_000)).dmarc_distribution.quarantine.count).toBe(0);
    await invalidateSummary(h.redis, a.accountId);
    expect((await cachedDashboardSummary(h.db, h.redis, a.accountId, 600_000)).dmarc_distribution.quarantine.count).toBe(1);
  });
});
