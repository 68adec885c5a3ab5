import { describe, expect, it } from 'vitest';
import type { ScanField, ScanObservation } from '@dv/contracts';
import { diffScan, TRACKED_FIELDS } from './changes.ts';
import { BASE_SCAN, outcome } from './fixtures.ts';

const T0 = new Date('2026-01-01T00:00:00Z');
const T1 = new Date('2026-01-02T00:00:00Z');
const T2 = new Date('2026-01-03T00:00:00Z');
const first = diffScan(null, outcome(T0), T0).result;

describe('diffScan: which rescans make change records', () => {
  const cases: Array<{ name: string; fields?: Partial<ScanObservation>; unconfirmed?: ScanField[]; changes: Array<[string, string | null, string | null]> }> = [
    { name: 'unchanged rescan', changes: [] },
    { name: 'changed MX', fields: { mx: '10 mx2.example.test' }, changes: [['mx', '10 mx1.example.test', '10 mx2.example.test']] },
    {
      name: 'gateway moved with MX',
      fields: { mx: '10 in.mimecast.test', email_gateway: 'Mimecast' },
      changes: [['mx', '10 mx1.example.test', '10 in.mimecast.test'], ['email_gateway', 'Google', 'Mimecast']],
    },
    { name: 'DMARC relaxed', fields: { dmarc: 'v=DMARC1; p=none', dmarc_policy_p: 'none' }, changes: [['dmarc', 'v=DMARC1; p=reject', 'v=DMARC1; p=none'], ['dmarc_policy_p', 'reject', 'none']] },
    { name: 'SPF confirmed gone (NXDOMAIN/NODATA) is a change to null', fields: { spf: null }, changes: [['spf', 'v=spf1 include:_spf.google.com ~all', null]] },
    { name: 'NS changed', fields: { ns: 'ns1.other.test,ns2.other.test' }, changes: [['ns', 'ns1.dns.test,ns2.dns.test', 'ns1.other.test,ns2.other.test']] },
    { name: 'untracked A record rotation', fields: { a_records: '192.0.2.9' }, changes: [] },
    { name: 'MX SERVFAIL (unconfirmed) keeps the value, no change', fields: { mx: null, email_gateway: null }, unconfirmed: ['mx', 'email_gateway'], changes: [] },
    { name: 'MX unconfirmed: a gateway derived from it is no observation either', fields: { mx: null, email_gateway: null }, unconfirmed: ['mx'], changes: [] },
    { name: 'DMARC timeout keeps policy too', fields: { dmarc: null, dmarc_policy_p: null }, unconfirmed: ['dmarc'], changes: [] },
    { name: 'one field unconfirmed, another really changed', fields: { ns: null, spf: 'v=spf1 -all' }, unconfirmed: ['ns'], changes: [['spf', 'v=spf1 include:_spf.google.com ~all', 'v=spf1 -all']] },
  ];
  it.each(cases)('$name', ({ fields, unconfirmed, changes }) => {
    const diff = diffScan(first, outcome(T1, fields, unconfirmed), T1);
    expect(diff.changes.map((c) => [c.field_name, c.old_value, c.new_value])).toEqual(changes);
    for (const f of unconfirmed ?? []) expect(diff.result[f]).toEqual(first[f]);
  });
});

describe('diffScan: stored result and change tracking', () => {
  it('a first scan records no change and starts change tracking empty', () => {
    const diff = diffScan(null, outcome(T0), T0);
    expect(diff.changes).toEqual([]);
    expect(diff.result).toMatchObject({ ...BASE_SCAN, previous_mx: null, mx_changed_date: null, previous_email_gateway: null, gateway_changed_date: null, previous_dmarc_p: null, dmarc_p_changed_date: null });
  });

  it('an unconfirmed field keeps its stored value (never null) in the result', () => {
    const diff = diffScan(first, outcome(T1, { mx: null, mx_server_country: null }, ['mx']), T1);
    expect(diff.result.mx).toBe('10 mx1.example.test');
    expect(diff.result.email_gateway).toBe('Google');
    expect(diff.result.scanned_at).toEqual(T1);
    expect(diff.unknown).toEqual([]);
  });

  it('a changed MX sets previous_mx and mx_changed_date, later unchanged scans keep them', () => {
    const changed = diffScan(first, outcome(T1, { mx: '10 mx2.example.test' }), T1).result;
    expect(changed).toMatchObject({ mx: '10 mx2.example.test', previous_mx: '10 mx1.example.test', mx_changed_date: T1, previous_email_gateway: null, gateway_changed_date: null });
    const later = diffScan(changed, outcome(T2, { mx: '10 mx2.example.test' }), T2);
    expect(later.changes).toEqual([]);
    expect(later.result).toMatchObject({ previous_mx: '10 mx1.example.test', mx_changed_date: T1 });
  });

  it('gateway and DMARC policy changes keep their own previous value and date', () => {
    const r = diffScan(first, outcome(T1, { email_gateway: 'Proofpoint', dmarc_policy_p: 'quarantine', dmarc: 'v=DMARC1; p=quarantine' }), T1).result;
    expect(r).toMatchObject({ previous_email_gateway: 'Google', gateway_changed_date: T1, previous_dmarc_p: 'reject', dmarc_p_changed_date: T1, previous_mx: null, mx_changed_date: null });
  });

  it('a field unconfirmed since the first scan is unknown, and its first confirmed answer is no change', () => {
    const firstFailed = diffScan(null, outcome(T0, { dmarc: null, dmarc_policy_p: null }, ['dmarc']), T0);
    expect(firstFailed.result.dmarc).toBeNull();
    expect(firstFailed.unknown.sort()).toEqual(['dmarc', 'dmarc_policy_p', 'dmarc_rua', 'dmarc_ruf']);
    const stillFailing = diffScan(firstFailed.result, outcome(T1, { dmarc: null, dmarc_policy_p: null }, ['dmarc']), T1, firstFailed.unknown);
    expect(stillFailing.unknown.sort()).toEqual(['dmarc', 'dmarc_policy_p', 'dmarc_rua', 'dmarc_ruf']);
    const answered = diffScan(stillFailing.result, outcome(T2), T2, stillFailing.unknown);
    expect(answered.changes).toEqual([]);
    expect(answered.unknown).toEqual([]);
    expect(answered.result.dmarc_policy_p).toBe('reject');
    // From then on it is known: a real change is recorded.
    const relaxed = diffScan(answered.result, outcome(T2, { dmarc_policy_p: 'none' }), T2, answered.unknown);
    expect(relaxed.changes.map((c) => c.field_name)).toEqual(['dmarc_policy_p']);
  });

  it('tracks at least the fields change alerts are promised on', () => {
    expect(TRACKED_FIELDS).toEqual(expect.arrayContaining(['mx', 'email_gateway', 'dmarc_policy_p', 'spf', 'dmarc', 'ns']));
  });
});
