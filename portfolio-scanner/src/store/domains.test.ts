import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from 'mongodb';
import { ALL_COLLECTIONS, COLLECTIONS, type AccountDomainDoc, type CorpusDomainDoc } from '@dv/contracts';
import { ensureCollections, type MongoDependency } from '@dv/runtime';
import { isolatedMongo } from '@dv/runtime/testing';
import { addDomains, removeDomain } from './domains.ts';
import { outcome } from './fixtures.ts';
import { nextDueAt, slotOf } from './schedule.ts';
import { storeScan } from './store.ts';

const INTERVAL_S = 86_400;
const T0 = new Date('2026-05-01T08:00:00Z');
const opts = { intervalS: INTERVAL_S, now: T0 };
let mongo: MongoDependency;
let db: Db;

beforeAll(async () => {
  mongo = await isolatedMongo('pdomains');
  db = mongo.db;
  await ensureCollections(db, ALL_COLLECTIONS);
});

afterAll(async () => {
  await mongo.db.dropDatabase();
  await mongo.close();
});

const corpus = (d: string) => db.collection<CorpusDomainDoc>(COLLECTIONS.portfolioCorpus.name).findOne({ _id: d });
const accountDocs = (account: string) => db.collection<AccountDomainDoc>(COLLECTIONS.portfolioDomains.name).find({ account_id: account }).sort({ id: 1 }).toArray();

describe('addDomains', () => {
  it('normalizes names (case, trailing dot, IDNA), drops duplicates, and gives per-account integer ids', async () => {
    const r = await addDomains(db, 'acc_n', ['Alpha.Example.TEST.', 'münchen.example.test', 'alpha.example.test', 'shop.example.co.uk'], opts);
    expect(r.invalid).toEqual([]);
    expect(r.domains).toEqual([
      { id: 1, domain: 'alpha.example.test', outcome: 'added', scan_now: true },
      { id: 2, domain: 'xn--mnchen-3ya.example.test', outcome: 'added', scan_now: true },
      { id: 3, domain: 'shop.example.co.uk', outcome: 'added', scan_now: true },
    ]);
    const docs = await accountDocs('acc_n');
    expect(docs.map((d) => [d.id, d.domain, d.tld, d.status])).toEqual([
      [1, 'alpha.example.test', 'test', 'active'],
      [2, 'xn--mnchen-3ya.example.test', 'test', 'active'],
      [3, 'shop.example.co.uk', 'co.uk', 'active'],
    ]);
    expect(docs[0]).toMatchObject({ added_at: T0, folder_id: null, is_favorite: false, tags: [], notes: null, custom_label: null, scanned_at: null });
    // New domains are due at once (priority scan).
    expect(await corpus('alpha.example.test')).toMatchObject({ watchers: 1, next_scan_at: T0, result: null, scan_count: 0 });
    // Another account's ids start at 1 of their own.
    expect((await addDomains(db, 'acc_other', ['alpha.example.test'], opts)).domains[0]).toMatchObject({ id: 1, outcome: 'added', scan_now: false });
    expect((await corpus('alpha.example.test'))?.watchers).toBe(2);
  });

  it('rejects what is not a public hostname and still adds the rest', async () => {
    const bad = ['http://x.example.test/', '192.0.2.1', '_dmarc.example.test', 'co.uk', 'localhost', 'a..b.test', ''];
    const r = await addDomains(db, 'acc_bad', [...bad, 'good.example.test'], opts);
    expect(r.invalid.map((i) => i.input)).toEqual(bad);
    for (const i of r.invalid) expect(i.reason).not.toBe('');
    expect(r.domains.map((d) => d.domain)).toEqual(['good.example.test']);
    expect(await addDomains(db, 'acc_bad', ['not a domain'], opts)).toMatchObject({ domains: [], invalid: [{ input: 'not a domain' }] });
  });

  it('adding an active domain again changes nothing', async () => {
    await addDomains(db, 'acc_again', ['again.example.test'], opts);
    const r = await addDomains(db, 'acc_again', ['again.example.test'], opts);
    expect(r.domains).toEqual([{ id: 1, domain: 'again.example.test', outcome: 'existing', scan_now: false }]);
    expect((await corpus('again.example.test'))?.watchers).toBe(1);
    expect(await accountDocs('acc_again')).toHaveLength(1);
  });

  it('two accounts adding the same new domain at once both count as watchers', async () => {
    await Promise.all(['acc_x', 'acc_y', 'acc_z'].map((a) => addDomains(db, a, ['together.example.test'], opts)));
    expect((await corpus('together.example.test'))?.watchers).toBe(3);
  });

  it('one account adding at once from two requests gets distinct ids', async () => {
    await Promise.all([addDomains(db, 'acc_par', ['p1.example.test', 'p2.example.test'], opts), addDomains(db, 'acc_par', ['p3.example.test'], opts)]);
    expect((await accountDocs('acc_par')).map((d) => d.id).sort()).toEqual([1, 2, 3]);
  });
});

describe('removeDomain', () => {
  it('removes, stops scanning when the last watcher leaves, and re-adding reactivates with the same id', async () => {
    const d = 'leaving.example.test';
    await addDomains(db, 'acc_r1', [d], opts);
    const [{ id } = { id: 0 }] = (await addDomains(db, 'acc_r2', [d], opts)).domains;
    await storeScan(db, d, slotOf(d, T0, INTERVAL_S), outcome(T0), opts);
    await db.collection<AccountDomainDoc>(COLLECTIONS.portfolioDomains.name).updateOne({ account_id: 'acc_r2', id }, { $set: { tags: ['vip'] } });

    expect(await removeDomain(db, 'acc_r2', id, { now: T0 })).toBe(true);
    expect(await removeDomain(db, 'acc_r2', id, { now: T0 })).toBe(false);
    expect(await removeDomain(db, 'acc_r2', 999, { now: T0 })).toBe(false);
    expect(await corpus(d)).toMatchObject({ watchers: 1, next_scan_at: nextDueAt(d, INTERVAL_S, T0) });
    const first = (await accountDocs('acc_r1'))[0];
    expect(await removeDomain(db, 'acc_r1', first?.id ?? -1, { now: T0 })).toBe(true);
    expect(await corpus(d)).toMatchObject({ watchers: 0, next_scan_at: null });
    expect((await accountDocs('acc_r1'))[0]).toMatchObject({ status: 'removed', removed_at: T0 });

    // Scans stored while nobody watches do not reach removed account documents.
    const later = new Date(T0.getTime() + 2 * INTERVAL_S * 1000);
    await storeScan(db, d, slotOf(d, later, INTERVAL_S), outcome(later), opts);
    expect((await accountDocs('acc_r2'))[0]?.scanned_at).toEqual(T0);

    // Re-added in a slot it was already scanned in: no priority scan, due at its next phase point.
    const r = await addDomains(db, 'acc_r2', [d], { intervalS: INTERVAL_S, now: later });
    expect(r.domains).toEqual([{ id, domain: d, outcome: 'reactivated', scan_now: false }]);
    expect((await accountDocs('acc_r2'))[0]).toMatchObject({ status: 'active', removed_at: null, tags: ['vip'], scanned_at: later });
    expect(await corpus(d)).toMatchObject({ watchers: 1, next_scan_at: nextDueAt(d, INTERVAL_S, later) });
  });

  it('a domain re-added after its last scan slot is scanned at once', async () => {
    const d = 'comeback.example.test';
    const [{ id } = { id: 0 }] = (await addDomains(db, 'acc_cb', [d], opts)).domains;
    await storeScan(db, d, slotOf(d, T0, INTERVAL_S), outcome(T0), opts);
    await removeDomain(db, 'acc_cb', id, { now: T0 });
    const weekLater = new Date(T0.getTime() + 7 * INTERVAL_S * 1000);
    expect((await addDomains(db, 'acc_cb', [d], { intervalS: INTERVAL_S, now: weekLater })).domains[0]).toMatchObject({ outcome: 'reactivated', scan_now: true });
    expect(await corpus(d)).toMatchObject({ watchers: 1, next_scan_at: weekLater });
  });
});
