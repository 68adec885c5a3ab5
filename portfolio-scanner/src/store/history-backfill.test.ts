import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from 'mongodb';
import { ALL_COLLECTIONS, COLLECTIONS, type AccountDomainDoc, type CorpusDomainDoc } from '@dv/contracts';
import { ensureCollections, type MongoDependency } from '@dv/runtime';
import { isolatedMongo } from '@dv/runtime/testing';
import { addDomains } from './domains.ts';
import { outcome } from './fixtures.ts';
import { backfillAccountHistory, backfilledHistory } from './history-backfill.ts';
import { slotOf } from './schedule.ts';
import { storeScan } from './store.ts';

// Each account's own history of a shared name (docs/portfolio-scanner.md "Tenant history"): the
// migration of documents stored before it, and the store never copying the corpus's last change.

const DAY = 86_400_000;
const INTERVAL_S = 86_400;
const T0 = new Date('2026-05-01T08:00:00Z');
const at = (days: number) => new Date(T0.getTime() + days * DAY);
let mongo: MongoDependency;
let db: Db;

beforeAll(async () => {
  mongo = await isolatedMongo('phistory_backfill');
  db = mongo.db;
  await ensureCollections(db, ALL_COLLECTIONS);
});

afterAll(async () => {
  await mongo.db.dropDatabase();
  await mongo.close();
});

const accounts = () => db.collection<AccountDomainDoc>(COLLECTIONS.portfolioDomains.name);
const corpusDoc = (firstSeenDays: number, scans: number, lastScannedDays: number | null) => ({ first_seen: at(firstSeenDays), scan_count: scans, last_scanned: lastScannedDays === null ? null : at(lastScannedDays) });

describe('backfilledHistory', () => {
  it.each([
    ['the account brought the name: every corpus scan is its own', { added_at: at(0), last_change_at: at(3) }, corpusDoc(0, 5, 4), { first_seen: at(0), scan_count_base: 0, last_change_at: at(3) }],
    ['not in the corpus', { added_at: at(0), last_change_at: null }, null, { first_seen: at(0), scan_count_base: 0, last_change_at: null }],
    ['added later: one scan per interval from the add to the latest scan is its own', { added_at: at(10), last_change_at: at(2) }, corpusDoc(0, 15, 14), { first_seen: at(10), scan_count_base: 10, last_change_at: null }],
    ['never more than the corpus made', { added_at: at(1), last_change_at: null }, corpusDoc(0, 3, 30), { first_seen: at(1), scan_count_base: 0, last_change_at: null }],
    ['not scanned since the add', { added_at: at(10), last_change_at: at(9) }, corpusDoc(0, 8, 9), { first_seen: at(10), scan_count_base: 8, last_change_at: null }],
  ])('%s', (_name, d, c, expected) => {
    expect(backfilledHistory(d, c, INTERVAL_S)).toEqual(expected);
  });
});

describe('backfillAccountHistory', () => {
  it('gives documents stored without a history one from what is stored, once per database', async () => {
    await addDomains(db, 'acc_old', ['old.example.test'], { intervalS: INTERVAL_S, now: at(0) });
    await storeScan(db, 'old.example.test', slotOf('old.example.test', at(1), INTERVAL_S), outcome(at(1), { mx: '10 a.example.test' }), { intervalS: INTERVAL_S, now: at(1) });
    await storeScan(db, 'old.example.test', slotOf('old.example.test', at(2), INTERVAL_S), outcome(at(2)), { intervalS: INTERVAL_S, now: at(2) });
    await addDomains(db, 'acc_late', ['old.example.test'], { intervalS: INTERVAL_S, now: at(5) });
    // As stored before: no history fields, and the corpus's last change copied in.
    await accounts().updateMany({ domain: 'old.example.test' }, { $unset: { first_seen: '', scan_count_base: '' }, $set: { last_change_at: at(2) } });
    await db.collection<CorpusDomainDoc>(COLLECTIONS.portfolioCorpus.name).updateOne({ _id: 'old.example.test' }, { $set: { last_scanned: at(6), scan_count: 4 } });

    expect(await backfillAccountHistory(db, INTERVAL_S)).toBe(2);
    expect(await accounts().findOne({ account_id: 'acc_old' })).toMatchObject({ first_seen: at(0), scan_count_base: 0, last_change_at: at(2) });
    expect(await accounts().findOne({ account_id: 'acc_late' })).toMatchObject({ first_seen: at(5), scan_count_base: 2, last_change_at: null });
    await accounts().updateOne({ account_id: 'acc_late' }, { $unset: { first_seen: '' } });
    expect(await backfillAccountHistory(db, INTERVAL_S)).toBe(0);
  });
});

describe('storing a scan', () => {
  it('moves an account\'s last_change_at only when the scan found a change, never to the corpus\'s earlier one', async () => {
    const d = 'later.example.test';
    const scan = (day: number, fields: Parameters<typeof outcome>[1] = {}) => storeScan(db, d, slotOf(d, at(day), INTERVAL_S), outcome(at(day), fields), { intervalS: INTERVAL_S, now: at(day) });
    await addDomains(db, 'acc_first', [d], { intervalS: INTERVAL_S, now: at(0) });
    await scan(1, { mx: '10 a.example.test' });
    await scan(2);
    await addDomains(db, 'acc_second', [d], { intervalS: INTERVAL_S, now: at(3) });
    // A scan with no change but a new SPF count (a whole summary write, not only scanned_at).
    await scan(4, { spf_total_lookups: 11 });
    expect(await accounts().findOne({ account_id: 'acc_second' })).toMatchObject({ last_change_at: null, spf_total_lookups: 11, first_seen: at(3), scan_count_base: 2 });
    expect((await accounts().findOne({ account_id: 'acc_first' }))?.last_change_at).toEqual(at(2));
    await scan(5, { mx: '10 b.example.test' });
    expect((await accounts().findOne({ account_id: 'acc_second' }))?.last_change_at).toEqual(at(5));
  });
});
