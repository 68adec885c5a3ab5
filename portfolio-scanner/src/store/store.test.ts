import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db, Document } from 'mongodb';
import { ALL_COLLECTIONS, CHANGE_RETENTION_DAYS, COLLECTIONS, type AccountDomainDoc, type ChangeDoc, type CorpusDomainDoc } from '@dv/contracts';
import { ensureCollections, type MongoDependency } from '@dv/runtime';
import { isolatedMongo } from '@dv/runtime/testing';
import { addDomains } from './domains.ts';
import { outcome } from './fixtures.ts';
import { nextDueAt, slotOf } from './schedule.ts';
import { storeScan, storeScans } from './store.ts';

const INTERVAL_S = 86_400;
const DAY_MS = INTERVAL_S * 1000;
const T0 = new Date('2026-05-01T08:00:00Z');
let mongo: MongoDependency;
let db: Db;

beforeAll(async () => {
  mongo = await isolatedMongo('pstore');
  db = mongo.db;
  await ensureCollections(db, ALL_COLLECTIONS);
});

afterAll(async () => {
  await mongo.db.dropDatabase();
  await mongo.close();
});

const corpus = () => db.collection<CorpusDomainDoc>(COLLECTIONS.portfolioCorpus.name);
const changesOf = (domain: string) => db.collection<ChangeDoc>(COLLECTIONS.portfolioChanges.name).find({ domain_name: domain }).sort({ id: 1 }).toArray();
const accountDoc = (account: string, domain: string) => db.collection<AccountDomainDoc>(COLLECTIONS.portfolioDomains.name).findOne({ account_id: account, domain });

/** A watched domain with its first scan stored; returns the slot of scan `n` (0 = the first). */
async function watchedAndScanned(account: string, domain: string): Promise<(n: number) => number> {
  await addDomains(db, account, [domain], { intervalS: INTERVAL_S, now: T0 });
  const slot = (n: number) => slotOf(domain, new Date(T0.getTime() + n * DAY_MS), INTERVAL_S);
  expect((await storeScan(db, domain, slot(0), outcome(T0), { intervalS: INTERVAL_S, now: T0 })).stored).toBe(true);
  return slot;
}

const at = (n: number) => new Date(T0.getTime() + n * DAY_MS + 60_000);

describe('storeScan', () => {
  it('stores a first scan without change records, and schedules the next one at the domain phase', async () => {
    const d = 'first.example.test';
    await watchedAndScanned('acc_1', d);
    const doc = await corpus().findOne({ _id: d });
    expect(doc).toMatchObject({ scan_count: 1, watchers: 1, last_slot: slotOf(d, T0, INTERVAL_S), last_scanned: T0, tld: 'test' });
    expect(doc?.result?.mx).toBe('10 mx1.example.test');
    expect(doc?.next_scan_at).toEqual(nextDueAt(d, INTERVAL_S, T0));
    expect(await changesOf(d)).toEqual([]);
  });

  it('an unchanged rescan writes no change record', async () => {
    const d = 'same.example.test';
    const slot = await watchedAndScanned('acc_1', d);
    const r = await storeScan(db, d, slot(1), outcome(at(1)), { intervalS: INTERVAL_S, now: at(1) });
    expect(r).toEqual({ stored: true, changes: [] });
    expect(await changesOf(d)).toEqual([]);
    expect((await corpus().findOne({ _id: d }))?.scan_count).toBe(2);
  });

  it('a changed MX writes exactly one record with old and new values, and updates previous_mx and mx_changed_date', async () => {
    const d = 'moved.example.test';
    const slot = await watchedAndScanned('acc_1', d);
    const r = await storeScan(db, d, slot(1), outcome(at(1), { mx: '10 mx2.example.test' }), { intervalS: INTERVAL_S, now: at(1) });
    expect(r.changes).toHaveLength(1);
    const stored = await changesOf(d);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ domain_name: d, field_name: 'mx', old_value: '10 mx1.example.test', new_value: '10 mx2.example.test', detected_at: at(1), slot: slot(1) });
    expect(Number.isInteger(stored[0]?.id)).toBe(true);
    expect(stored[0]?.expires_at).toEqual(new Date(at(1).getTime() + CHANGE_RETENTION_DAYS * DAY_MS));
    const doc = await corpus().findOne({ _id: d });
    expect(doc?.result).toMatchObject({ mx: '10 mx2.example.test', previous_mx: '10 mx1.example.test', mx_changed_date: at(1) });
    expect(doc?.last_change_at).toEqual(at(1));
    expect(await accountDoc('acc_1', d)).toMatchObject({ last_change_at: at(1), scanned_at: at(1) });
  });

  it('an unconfirmed field (SERVFAIL, timeout) writes no record and keeps its stored value', async () => {
    const d = 'flappy.example.test';
    const slot = await watchedAndScanned('acc_1', d);
    const r = await storeScan(db, d, slot(1), outcome(at(1), { mx: null, email_gateway: null, ns: null }, ['mx', 'ns']), { intervalS: INTERVAL_S, now: at(1) });
    expect(r).toEqual({ stored: true, changes: [] });
    expect(await changesOf(d)).toEqual([]);
    const doc = await corpus().findOne({ _id: d });
    expect(doc?.result).toMatchObject({ mx: '10 mx1.example.test', email_gateway: 'Google', ns: 'ns1.dns.test,ns2.dns.test', scanned_at: at(1) });
    expect(await accountDoc('acc_1', d)).toMatchObject({ email_gateway: 'Google' });
  });

  it('storing the same slot twice writes once; an older slot after a newer one writes nothing', async () => {
    const d = 'twice.example.test';
    const slot = await watchedAndScanned('acc_1', d);
    const changed = outcome(at(1), { mx: '10 mx2.example.test' });
    expect((await storeScan(db, d, slot(1), changed, { intervalS: INTERVAL_S, now: at(1) })).stored).toBe(true);
    expect(await storeScan(db, d, slot(1), changed, { intervalS: INTERVAL_S, now: at(1) })).toEqual({ stored: false, changes: [] });
    expect(await storeScan(db, d, slot(0), outcome(T0, { mx: '10 old.example.test' }), { intervalS: INTERVAL_S, now: at(1) })).toEqual({ stored: false, changes: [] });
    expect(await changesOf(d)).toHaveLength(1);
    const doc = await corpus().findOne({ _id: d });
    expect(doc).toMatchObject({ scan_count: 2, last_slot: slot(1) });
    expect(doc?.result?.mx).toBe('10 mx2.example.test');
  });

  it('concurrent stores of one slot (a redelivery racing the first delivery) write once', async () => {
    const d = 'race.example.test';
    const slot = await watchedAndScanned('acc_1', d);
    const changed = outcome(at(1), { mx: '10 mx2.example.test', email_gateway: 'Mimecast' });
    const results = await Promise.all(Array.from({ length: 4 }, () => storeScan(db, d, slot(1), changed, { intervalS: INTERVAL_S, now: at(1) })));
    expect(results.filter((r) => r.stored)).toHaveLength(1);
    const stored = await changesOf(d);
    expect(stored.map((c) => c.field_name).sort()).toEqual(['email_gateway', 'mx']);
    expect((await corpus().findOne({ _id: d }))?.scan_count).toBe(2);
  });

  it('change ids are distinct integers across domains stored at once', async () => {
    const names = ['ids-a.example.test', 'ids-b.example.test', 'ids-c.example.test'];
    const slots = await Promise.all(names.map((n) => watchedAndScanned('acc_2', n)));
    await Promise.all(names.map((n, i) => storeScan(db, n, slots[i]!(1), outcome(at(1), { ns: 'ns9.dns.test', spf: null }), { intervalS: INTERVAL_S, now: at(1) })));
    const ids = (await Promise.all(names.map(changesOf))).flat().map((c) => c.id);
    expect(ids).toHaveLength(6);
    expect(new Set(ids).size).toBe(6);
  });

  it('a domain watched by two accounts has one corpus document, and both accounts get the summary fields', async () => {
    const d = 'shared.example.test';
    await addDomains(db, 'acc_a', [d], { intervalS: INTERVAL_S, now: T0 });
    await addDomains(db, 'acc_b', [d.toUpperCase()], { intervalS: INTERVAL_S, now: T0 });
    expect(await corpus().countDocuments({ _id: d })).toBe(1);
    expect((await corpus().findOne({ _id: d }))?.watchers).toBe(2);
    const slot = slotOf(d, T0, INTERVAL_S);
    await storeScan(db, d, slot, outcome(T0, { dmarc: null, dmarc_policy_p: null, spf_total_lookups: 12 }), { intervalS: INTERVAL_S, now: T0 });
    for (const account of ['acc_a', 'acc_b']) {
      expect(await accountDoc(account, d)).toMatchObject({
        email_gateway: 'Google',
        dmarc_policy_p: null,
        spf: 'v=spf1 include:_spf.google.com ~all',
        spf_total_lookups: 12,
        scanned_at: T0,
        needs_attention: true,
      });
    }
  });

  it('a scan of a domain nobody watches is stored but not scheduled', async () => {
    const d = 'orphan.example.test';
    const r = await storeScan(db, d, slotOf(d, T0, INTERVAL_S), outcome(T0), { intervalS: INTERVAL_S, now: T0 });
    expect(r.stored).toBe(true);
    expect(await corpus().findOne({ _id: d })).toMatchObject({ watchers: 0, next_scan_at: null, scan_count: 1, first_seen: T0 });
  });
});

describe('storeScans (a worker\'s group of scans in one transaction)', () => {
  it('stores each scan as storeScan would: changes and summaries per domain, a copy and an older slot write nothing, the sweep time is kept', async () => {
    const [a, b, c] = ['grp-a.example.test', 'grp-b.example.test', 'grp-c.example.test'];
    const sa = await watchedAndScanned('acc_g', a);
    const sb = await watchedAndScanned('acc_g', b);
    const sc = await watchedAndScanned('acc_g', c);
    const opts = { intervalS: INTERVAL_S, now: at(1) };
    const results = await storeScans(
      db,
      [
        { domain: a, slot: sa(1), outcome: outcome(at(1), { mx: '10 mx2.example.test' }) },
        { domain: b, slot: sb(1), outcome: outcome(at(1)), fullDkimSweepAt: at(1) },
        // The same domain twice in one group: the later slot wins, the earlier one is not stored.
        { domain: c, slot: sc(2), outcome: outcome(at(2), { dmarc_policy_p: 'quarantine' }) },
        { domain: c, slot: sc(1), outcome: outcome(at(1), { mx: '10 other.example.test' }) },
        // Already stored (the first scan's slot again).
        { domain: a, slot: sa(0), outcome: outcome(T0, { mx: '10 mx9.example.test' }) },
      ],
      opts,
    );
    expect(results.map((r) => r.stored)).toEqual([true, true, true, false, false]);
    expect(results[0]?.changes.map((ch) => [ch.field_name, ch.old_value, ch.new_value])).toEqual([['mx', '10 mx1.example.test', '10 mx2.example.test']]);
    expect(results[1]?.changes).toEqual([]);
    expect(results[2]?.changes.map((ch) => ch.field_name)).toEqual(['dmarc_policy_p']);
    expect((await corpus().findOne({ _id: a }))?.result?.previous_mx).toBe('10 mx1.example.test');
    expect(await corpus().findOne({ _id: b })).toMatchObject({ scan_count: 2, last_slot: sb(1), last_full_dkim_at: at(1) });
    expect(await corpus().findOne({ _id: c })).toMatchObject({ scan_count: 2, last_slot: sc(2) });
    expect((await corpus().findOne({ _id: c }))?.result?.mx).toBe('10 mx1.example.test');
    expect((await accountDoc('acc_g', c))?.dmarc_policy_p).toBe('quarantine');
    // Ids are distinct integers in store order across the group.
    const ids = [...(await changesOf(a)), ...(await changesOf(c))].map((ch) => ch.id);
    expect(new Set(ids).size).toBe(ids.length);
    // Stored again (a redelivered group): nothing more.
    const again = await storeScans(db, [{ domain: a, slot: sa(1), outcome: outcome(at(1), { mx: '10 mx3.example.test' }) }], opts);
    expect(again).toEqual([{ stored: false, changes: [] }]);
    expect((await changesOf(a)).length).toBe(1);
  });

  it('unchanged rescans move each watching account\'s scanned_at to its own scan\'s time (one update for the group); a removed copy keeps its own; a summary that differs beyond the time is written whole', async () => {
    const [p, q, r] = ['fresh-p.example.test', 'fresh-q.example.test', 'fresh-r.example.test'];
    const sp = await watchedAndScanned('acc_f1', p);
    await addDomains(db, 'acc_f2', [p], { intervalS: INTERVAL_S, now: T0 });
    const sq = await watchedAndScanned('acc_f1', q);
    const sr = await watchedAndScanned('acc_f1', r);
    // acc_f3 watched q and removed it: its copy is no longer kept up to date.
    await addDomains(db, 'acc_f3', [q], { intervalS: INTERVAL_S, now: T0 });
    await db.collection<AccountDomainDoc>(COLLECTIONS.portfolioDomains.name).updateOne({ account_id: 'acc_f3', domain: q }, { $set: { status: 'removed' } });
    const tp = new Date(at(1).getTime() + 1_000);
    const tq = new Date(at(1).getTime() + 2_000);
    // r: no tracked change, but over the SPF lookup limit now (needs_attention and spf_status follow).
    const results = await storeScans(
      db,
      [
        { domain: p, slot: sp(1), outcome: outcome(tp) },
        { domain: q, slot: sq(1), outcome: outcome(tq) },
        { domain: r, slot: sr(1), outcome: outcome(at(1), { spf_total_lookups: 12 }) },
      ],
      { intervalS: INTERVAL_S, now: at(1) },
    );
    expect(results.map((x) => [x.stored, x.changes.length])).toEqual([[true, 0], [true, 0], [true, 0]]);
    expect((await accountDoc('acc_f1', p))?.scanned_at).toEqual(tp);
    expect((await accountDoc('acc_f2', p))?.scanned_at).toEqual(tp);
    expect((await accountDoc('acc_f1', q))?.scanned_at).toEqual(tq);
    expect((await accountDoc('acc_f3', q))?.scanned_at).toEqual(T0);
    expect(await accountDoc('acc_f1', r)).toMatchObject({ scanned_at: at(1), spf_total_lookups: 12, needs_attention: true, spf_status: 'over_limit' });
    expect(await accountDoc('acc_f1', p)).toMatchObject({ email_gateway: 'Google', needs_attention: false, spf_status: 'valid' });
  });

  it('two groups holding the same domain and slot, stored at once, write it once', async () => {
    const d = 'grp-race.example.test';
    const slot = await watchedAndScanned('acc_g', d);
    const others = ['grp-r1.example.test', 'grp-r2.example.test'];
    for (const o of others) await watchedAndScanned('acc_g', o);
    const scan = { domain: d, slot: slot(1), outcome: outcome(at(1), { mx: '10 mx2.example.test' }) };
    const opts = { intervalS: INTERVAL_S, now: at(1) };
    const [g1, g2] = await Promise.all([
      storeScans(db, [scan, { domain: others[0]!, slot: slotOf(others[0]!, at(1), INTERVAL_S), outcome: outcome(at(1)) }], opts),
      storeScans(db, [{ domain: others[1]!, slot: slotOf(others[1]!, at(1), INTERVAL_S), outcome: outcome(at(1)) }, scan], opts),
    ]);
    expect([g1[0]?.stored, g2[1]?.stored].filter(Boolean)).toEqual([true]);
    expect([g1[1]?.stored, g2[0]?.stored]).toEqual([true, true]);
    expect((await changesOf(d)).length).toBe(1);
    expect((await corpus().findOne({ _id: d }))?.scan_count).toBe(2);
  });
});

describe('indexes', () => {
  // The indexes MongoDB considers for a query (winning and rejected plans): a definition it cannot
  // use (a partial filter the query does not imply) is missing, whatever the data.
  const candidates = async (cursor: { explain: () => Promise<Document> }) => {
    const names = new Set<string>();
    JSON.stringify((await cursor.explain()).queryPlanner, (k, v: unknown) => (k === 'indexName' && typeof v === 'string' && names.add(v), v));
    return [...names];
  };

  it('serve the planner, the dashboard, the global view and a domain change history', async () => {
    expect(await candidates(corpus().find({ next_scan_at: { $lte: new Date() } }).sort({ next_scan_at: 1 }).limit(100))).toEqual(['next_scan']);
    expect(await candidates(corpus().find({ watchers: { $gt: 0 }, 'result.email_gateway': 'Mimecast' }).sort({ _id: 1 }))).toContain('watched_gateway');
    const accounts = db.collection<AccountDomainDoc>(COLLECTIONS.portfolioDomains.name);
    expect(await candidates(accounts.find({ account_id: 'acc_1', last_change_at: { $gte: T0 } }).sort({ last_change_at: -1 }))).toContain('account_last_change');
    expect(await candidates(accounts.find({ account_id: 'acc_1', needs_attention: true }))).toContain('account_attention');
    const changes = db.collection<ChangeDoc>(COLLECTIONS.portfolioChanges.name);
    expect(await candidates(changes.find({ domain_name: 'moved.example.test' }).sort({ id: -1 }).limit(20))).toContain('domain_changes');
  });
});
