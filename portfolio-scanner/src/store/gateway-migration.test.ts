import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from 'mongodb';
import { ALL_COLLECTIONS, COLLECTIONS, type AccountDomainDoc, type ChangeDoc, type CorpusDomainDoc } from '@dv/contracts';
import { ensureCollections, type MongoDependency } from '@dv/runtime';
import { isolatedMongo } from '@dv/runtime/testing';
import { addDomains } from './domains.ts';
import { outcome } from './fixtures.ts';
import { migrateGatewayValues } from './gateway-migration.ts';
import { slotOf } from './schedule.ts';
import { storeScan } from './store.ts';

// Stored gateway values from before the vocabulary (display names, `none (null MX)`, the domain's
// own name) are rewritten once, in the corpus, the account summaries and the change records,
// without a change record; and a scan finding the same gateway afterwards records no change.

const INTERVAL_S = 86_400;
const DAY_MS = INTERVAL_S * 1000;
const T0 = new Date('2026-05-01T08:00:00Z');
let mongo: MongoDependency;
let db: Db;

const corpus = () => db.collection<CorpusDomainDoc>(COLLECTIONS.portfolioCorpus.name);
const changes = () => db.collection<ChangeDoc>(COLLECTIONS.portfolioChanges.name);
const accountDoc = (domain: string) => db.collection<AccountDomainDoc>(COLLECTIONS.portfolioDomains.name).findOne({ account_id: 'acc_m', domain });
const at = (n: number) => new Date(T0.getTime() + n * DAY_MS + 60_000);

/** Two scans stored as the old code stored them: `before` then `after`, so a legacy change record and previous value exist. */
async function legacy(domain: string, before: string | null, after: string | null, mx = '10 mx1.example.test') {
  await addDomains(db, 'acc_m', [domain], { intervalS: INTERVAL_S, now: T0 });
  await storeScan(db, domain, slotOf(domain, at(0), INTERVAL_S), outcome(at(0), { mx: `${mx}-before`, email_gateway: before }), { intervalS: INTERVAL_S, now: at(0) });
  await storeScan(db, domain, slotOf(domain, at(1), INTERVAL_S), outcome(at(1), { mx, email_gateway: after }), { intervalS: INTERVAL_S, now: at(1) });
  // Today's store writes the change and previous value in today's terms: put back what the old code wrote.
  await corpus().updateOne({ _id: domain }, { $set: { 'result.email_gateway': after, 'result.previous_email_gateway': before === after ? null : before } });
  await changes().updateMany({ domain_name: domain, field_name: 'email_gateway' }, { $set: { old_value: before, new_value: after } });
  await db.collection<AccountDomainDoc>(COLLECTIONS.portfolioDomains.name).updateMany({ domain }, { $set: { email_gateway: after } });
}

beforeAll(async () => {
  mongo = await isolatedMongo('pgwmigrate');
  db = mongo.db;
  await ensureCollections(db, ALL_COLLECTIONS);
  await legacy('g.example.test', 'Microsoft 365 (Exchange Online)', 'Google (Gmail / Workspace)');
  await legacy('selfhost.test', 'none (null MX)', 'selfhost.test', '10 mail.selfhost.test');
  await legacy('third.example.test', 'mailhost.example', 'mailhost.example');
});

afterAll(async () => {
  await mongo.db.dropDatabase();
  await mongo.close();
});

describe('migrateGatewayValues', () => {
  it('rewrites email_gateway, previous_email_gateway, account summaries and change records; writes no change record', async () => {
    const before = await changes().find().sort({ id: 1 }).toArray();
    const lastChange = (await corpus().findOne({ _id: 'g.example.test' }))?.last_change_at;
    expect(before.filter((c) => c.field_name === 'email_gateway').map((c) => [c.old_value, c.new_value])).toEqual([
      ['Microsoft 365 (Exchange Online)', 'Google (Gmail / Workspace)'],
      ['none (null MX)', 'selfhost.test'],
    ]);

    const r = await migrateGatewayValues(db);
    expect(r).toMatchObject({ corpus: 2, accountDomains: 2, changes: 2 });

    expect((await corpus().findOne({ _id: 'g.example.test' }))?.result).toMatchObject({ email_gateway: 'Google', previous_email_gateway: 'Microsoft 365' });
    expect((await corpus().findOne({ _id: 'selfhost.test' }))?.result).toMatchObject({ email_gateway: 'Self-hosted', previous_email_gateway: 'Null MX' });
    expect((await corpus().findOne({ _id: 'third.example.test' }))?.result).toMatchObject({ email_gateway: 'mailhost.example' });
    expect(await accountDoc('g.example.test')).toMatchObject({ email_gateway: 'Google' });
    expect(await accountDoc('selfhost.test')).toMatchObject({ email_gateway: 'Self-hosted' });
    expect(await accountDoc('third.example.test')).toMatchObject({ email_gateway: 'mailhost.example' });

    const after = await changes().find().sort({ id: 1 }).toArray();
    expect(after.map((c) => c._id)).toEqual(before.map((c) => c._id));
    expect(after.filter((c) => c.field_name === 'email_gateway').map((c) => [c.old_value, c.new_value])).toEqual([
      ['Microsoft 365', 'Google'],
      ['Null MX', 'Self-hosted'],
    ]);
    expect(after.filter((c) => c.field_name === 'mx')).toEqual(before.filter((c) => c.field_name === 'mx'));
    expect((await corpus().findOne({ _id: 'g.example.test' }))?.last_change_at).toEqual(lastChange);

    // Once per database.
    expect(await migrateGatewayValues(db)).toEqual({ corpus: 0, accountDomains: 0, changes: 0 });
  });

  it('a rescan seeing the same gateway after the migration records no change', async () => {
    const d = 'g.example.test';
    const r = await storeScan(db, d, slotOf(d, at(2), INTERVAL_S), outcome(at(2), { email_gateway: 'Google' }), { intervalS: INTERVAL_S, now: at(2) });
    expect(r).toEqual({ stored: true, changes: [] });
  });

  it('a legacy value stored after the migration (an older replica) is no change either, and the summary takes today\'s value', async () => {
    const d = 'late.example.test';
    await legacy(d, 'Google (Gmail / Workspace)', 'Google (Gmail / Workspace)');
    const r = await storeScan(db, d, slotOf(d, at(2), INTERVAL_S), outcome(at(2), { email_gateway: 'Google' }), { intervalS: INTERVAL_S, now: at(2) });
    expect(r).toEqual({ stored: true, changes: [] });
    expect((await corpus().findOne({ _id: d }))?.result?.email_gateway).toBe('Google');
    expect(await accountDoc(d)).toMatchObject({ email_gateway: 'Google' });
  });
});
