import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COLLECTIONS, type AccountDomainDoc, type ExportParameters } from '@dv/contracts';
import { diffBatches, domainBatches } from '../exports/rows.ts';
import { outcome } from '../store/fixtures.ts';
import { addDomains, slotOf, storeScan } from '../store/index.ts';
import { dashboardSummary } from './summary.ts';
import { INTERVAL_S, startHarness, type Harness } from './testing/harness.ts';

// A domain already in the shared corpus, added by a second account: that account sees the latest
// scan at once, but its first_seen, scan_count, change history (detail, changes, dashboard,
// exports) and the scan result's change-tracking fields start when it added the name. A plan with
// the global domain view sees the corpus's own. The first watcher keeps its whole history. REST,
// the MCP connector and the export rows alike.

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NAME = 'shared.example.test';
let h: Harness;
let early: { accountId: string; key: string };
let late: { accountId: string; key: string };
let premium: { accountId: string; key: string };
let n0: number;
let lateAddedAt: number;
const ids = { early: 0, late: 0, premium: 0 };

async function scan(at: Date, fields: Parameters<typeof outcome>[1]) {
  await storeScan(h.db, NAME, slotOf(NAME, at, INTERVAL_S), outcome(at, fields), { intervalS: INTERVAL_S, now: at });
}
const detail = async (who: { key: string }, id: number) => (await h.call('GET', `/api/v1/domains/${id}/`, { key: who.key })).body.data;
const changeList = async (who: { key: string }, id: number) => (await h.call('GET', `/api/v1/domains/${id}/changes/`, { key: who.key })).body;
const add = async (who: { key: string }) => (await h.call('POST', '/api/v1/domains/', { key: who.key, body: { domains: [NAME] } })).body.data[0].id as number;

beforeAll(async () => {
  h = await startHarness('phistory', { connector: true });
  early = await h.account('enterprise');
  late = await h.account('enterprise');
  premium = await h.account('enterprise_max_premium');
  n0 = Date.now();
  // The first watcher added the name five days ago; its scans found MX and DMARC change two days ago.
  ids.early = (await addDomains(h.db, early.accountId, [NAME], { intervalS: INTERVAL_S, now: new Date(n0 - 5 * DAY) })).domains[0]!.id;
  await scan(new Date(n0 - 4 * DAY), { mx: '10 old.example.test', dmarc: 'v=DMARC1; p=none', dmarc_policy_p: 'none' });
  await scan(new Date(n0 - 2 * DAY), {});
  lateAddedAt = Date.now();
  ids.late = await add(late);
  ids.premium = await add(premium);
});
afterAll(async () => h?.close());

describe('an account that adds a name already in the corpus', () => {
  it('sees the latest scan at once, but no first_seen, scan count or changes from before it added the name', async () => {
    const d = await detail(late, ids.late);
    expect(Date.parse(d.first_seen)).toBeGreaterThanOrEqual(lateAddedAt);
    expect(d.scan_count).toBe(0);
    expect(d.change_history).toEqual([]);
    // The latest result is public DNS: served at once, but not the corpus's change tracking.
    expect(d.scan_result).toMatchObject({ mx: '10 mx1.example.test', dmarc_policy_p: 'reject', previous_mx: null, mx_changed_date: null, previous_dmarc_p: null, dmarc_p_changed_date: null });
    expect(d.last_scanned).toBe(new Date(n0 - 2 * DAY).toISOString());
    expect((await h.call('GET', `/api/v1/domains/${ids.late}/scan-results/`, { key: late.key })).body.data).toEqual(d.scan_result);
    expect(await changeList(late, ids.late)).toMatchObject({ data: [], meta: { total_count: 0 } });
    expect((await dashboardSummary(h.db, late.accountId)).recent_changes).toEqual([]);
    // The MCP connector's read tools answer the same.
    const mcp = new Client({ name: 'history-test', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${h.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${late.key}` } } }));
    try {
      const tool = async (name: string) => ((await mcp.callTool({ name, arguments: { domain: NAME } })) as CallToolResult).structuredContent;
      expect(await tool('get_domain')).toMatchObject({ first_seen: d.first_seen, scan_count: 0, change_history: [], scan_result: { previous_mx: null } });
      expect(await tool('get_change_history')).toMatchObject({ changes: [], total_count: 0 });
      expect(await tool('get_scan_results')).toMatchObject({ scan_result: { mx: '10 mx1.example.test', previous_mx: null, mx_changed_date: null } });
    } finally {
      await mcp.close();
    }
    const mine = await h.db.collection<AccountDomainDoc>(COLLECTIONS.portfolioDomains.name).findOne({ account_id: late.accountId, domain: NAME });
    expect(mine?.last_change_at).toBeNull();
  });

  it('the first watcher keeps its own history from when it added the name', async () => {
    const d = await detail(early, ids.early);
    expect(d.first_seen).toBe(new Date(n0 - 5 * DAY).toISOString());
    expect(d.scan_count).toBe(2);
    expect(d.change_history.map((c: { field_name: string }) => c.field_name).sort()).toEqual(['dmarc', 'dmarc_policy_p', 'mx']);
    expect(d.scan_result).toMatchObject({ previous_mx: '10 old.example.test', mx_changed_date: new Date(n0 - 2 * DAY).toISOString() });
    expect((await dashboardSummary(h.db, early.accountId)).recent_changes).toHaveLength(3);
  });

  it('scans and changes after the add count for it', async () => {
    await scan(new Date(Date.now() + 60_000), { mx: '10 new.example.test' });
    const d = await detail(late, ids.late);
    expect(d.scan_count).toBe(1);
    expect(d.change_history).toEqual([expect.objectContaining({ field_name: 'mx', old_value: '10 mx1.example.test', new_value: '10 new.example.test' })]);
    expect(d.scan_result).toMatchObject({ previous_mx: '10 mx1.example.test', previous_dmarc_p: null, dmarc_p_changed_date: null });
    expect(d.scan_result.mx_changed_date).not.toBeNull();
    expect((await changeList(late, ids.late)).meta.total_count).toBe(1);
    expect((await dashboardSummary(h.db, late.accountId)).recent_changes.map((c) => c.field_name)).toEqual(['mx']);
    expect((await detail(early, ids.early)).scan_count).toBe(3);
  });

  it('a plan with the global domain view sees the corpus as such', async () => {
    const d = await detail(premium, ids.premium);
    expect(d.first_seen).toBe(new Date(n0 - 5 * DAY).toISOString());
    expect(d.scan_count).toBe(3);
    expect(d.change_history).toHaveLength(4);
    expect(d.scan_result.previous_dmarc_p).toBe('none');
    expect((await changeList(premium, ids.premium)).meta.total_count).toBe(4);
  });

  it('exports of its own domains leave out the corpus\'s earlier changes and change tracking', async () => {
    const source = (parameters: Partial<ExportParameters>) => ({ accountId: late.accountId, batchRows: 10, parameters: { folder_id: null, columns: [], filters: {}, ...parameters } });
    const diff: unknown[] = [];
    for await (const b of diffBatches(h.db, source({ from: new Date(n0 - 10 * DAY).toISOString(), to: new Date(Date.now() + DAY).toISOString() }))) diff.push(...b.rows);
    expect(diff).toEqual([expect.objectContaining({ field_name: 'mx', value_at_from: '10 mx1.example.test', value_at_to: '10 new.example.test', changes: 1 })]);
    const rows = [];
    for await (const b of domainBatches(h.db, source({}), ['domain', 'previous_dmarc_p', 'dmarc_p_changed_date', 'previous_mx'])) rows.push(...b);
    expect(rows.map((r) => [r.scan?.previous_dmarc_p, r.scan?.dmarc_p_changed_date, r.scan?.previous_mx])).toEqual([[null, null, '10 mx1.example.test']]);
  });

  it('removing the name ends its history: re-added, it starts anew; a pause (inactive) keeps it', async () => {
    await h.call('PATCH', `/api/v1/domains/${ids.late}/`, { key: late.key, body: { status: 'inactive' } });
    await h.call('PATCH', `/api/v1/domains/${ids.late}/`, { key: late.key, body: { status: 'active' } });
    const paused = await detail(late, ids.late);
    expect(paused).toMatchObject({ scan_count: 1, change_history: [expect.objectContaining({ field_name: 'mx' })] });
    expect(Date.parse(paused.first_seen)).toBeLessThan(Date.now());

    expect((await h.call('DELETE', `/api/v1/domains/${ids.late}/`, { key: late.key })).status).toBe(200);
    // The next scan lands while it is removed (its first watcher still monitors the name).
    await scan(new Date(Date.now() + DAY + 60_000), { mx: '10 newer.example.test' });
    const readdedAt = new Date(Date.now() + 2 * DAY);
    expect((await addDomains(h.db, late.accountId, [NAME], { intervalS: INTERVAL_S, now: readdedAt })).domains[0]).toMatchObject({ id: ids.late, outcome: 'reactivated' });
    const d = await detail(late, ids.late);
    expect(d.first_seen).toBe(readdedAt.toISOString());
    expect(d.scan_count).toBe(0);
    expect(d.change_history).toEqual([]);
    expect(d.scan_result).toMatchObject({ mx: '10 newer.example.test', previous_mx: null, mx_changed_date: null });
  });
});
