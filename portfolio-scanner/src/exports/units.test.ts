import { describe, expect, it } from 'vitest';
import { csvCell, csvLine } from './csv.ts';
import { normalizeParameters, exportRequestSchema } from './params.ts';
import { netChanges } from './rows.ts';
import { checkExportLink, signExportLink } from './signing.ts';

const SECRET = 'a-secret-of-more-than-thirty-two-characters';

describe('csv', () => {
  it.each([
    [null, ''],
    [undefined, ''],
    [12, '12'],
    [true, 'true'],
    [new Date('2026-01-02T03:04:05Z'), '2026-01-02T03:04:05.000Z'],
    [['a', 'b'], 'a;b'],
    ['plain', 'plain'],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['two\r\nlines', '"two\r\nlines"'],
    ['=HYPERLINK("x")', '"\'=HYPERLINK(""x"")"'],
    ['+1', "'+1"],
    ['-all', "'-all"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['v=spf1 -all', 'v=spf1 -all'],
    // Every element of a ;-joined list: a spreadsheet splitting on ; sees each as a cell.
    [['x', '=HYPERLINK("y")'], '"x;\'=HYPERLINK(""y"")"'],
    [['+1', '-2', 'ok'], "'+1;'-2;ok"],
  ])('%j → %j', (v, want) => {
    expect(csvCell(v as Parameters<typeof csvCell>[0])).toBe(want);
  });
  it('lines end with CRLF', () => {
    expect(csvLine(['a', null, 3])).toBe('a,,3\r\n');
  });
});

describe('signed links', () => {
  const now = 1_800_000_000;
  const parse = (link: string) => new URL(link, 'http://x').searchParams;
  it('accepts its own link until it expires, then says expired', () => {
    const q = parse(signExportLink('exp_1', 3, now + 60, SECRET));
    expect(checkExportLink('exp_1', q.get('key'), q.get('expires'), q.get('signature'), SECRET, now)).toBe('ok');
    expect(checkExportLink('exp_1', q.get('key'), q.get('expires'), q.get('signature'), SECRET, now + 60)).toBe('expired');
  });
  it('refuses another task, another key, a moved expiry, a mangled or missing signature', () => {
    const q = parse(signExportLink('exp_1', 3, now + 60, SECRET));
    expect(checkExportLink('exp_2', q.get('key'), q.get('expires'), q.get('signature'), SECRET, now)).toBe('bad_signature');
    expect(checkExportLink('exp_1', q.get('key'), q.get('expires'), q.get('signature'), `${SECRET}x`, now)).toBe('bad_signature');
    expect(checkExportLink('exp_1', q.get('key'), String(now + 6000), q.get('signature'), SECRET, now)).toBe('bad_signature');
    expect(checkExportLink('exp_1', q.get('key'), q.get('expires'), `${q.get('signature')!.slice(0, -1)}A`, SECRET, now)).toBe('bad_signature');
    expect(checkExportLink('exp_1', q.get('key'), q.get('expires'), undefined, SECRET, now)).toBe('bad_signature');
    expect(checkExportLink('exp_1', q.get('key'), '-1', q.get('signature'), SECRET, now)).toBe('bad_signature');
    expect(checkExportLink('exp_1', q.get('key'), [q.get('expires')], q.get('signature'), SECRET, now)).toBe('bad_signature');
    // The link names the key it was made for: another key of the account is another link.
    expect(q.get('key')).toBe('3');
    expect(checkExportLink('exp_1', '4', q.get('expires'), q.get('signature'), SECRET, now)).toBe('bad_signature');
    expect(checkExportLink('exp_1', undefined, q.get('expires'), q.get('signature'), SECRET, now)).toBe('bad_signature');
  });
});

describe('export parameters', () => {
  const parse = (b: unknown) => exportRequestSchema.safeParse(b);
  it('fills defaults: csv, the list item columns, no filters', () => {
    const r = parse({});
    expect(r.success).toBe(true);
    expect(normalizeParameters(r.data!)).toEqual({
      type: 'csv',
      parameters: { folder_id: null, columns: ['id', 'domain', 'email_gateway', 'dmarc_policy_p', 'spf', 'scanned_at', 'added_at', 'folder_id', 'is_favorite', 'tags'], filters: {} },
    });
  });
  it('diff takes from/to (to defaults to now), csv refuses them', () => {
    const now = new Date('2026-06-01T00:00:00Z');
    const r = parse({ export_type: 'diff', from: '2026-05-01T00:00:00+02:00' });
    expect(r.success).toBe(true);
    expect(normalizeParameters(r.data!, now).parameters).toMatchObject({ from: '2026-04-30T22:00:00.000Z', to: now.toISOString() });
    expect(parse({ export_type: 'csv', from: '2026-05-01T00:00:00Z' }).success).toBe(false);
    expect(parse({ export_type: 'diff' }).success).toBe(false);
    expect(parse({ export_type: 'diff', from: '2026-05-02T00:00:00Z', to: '2026-05-01T00:00:00Z' }).success).toBe(false);
    expect(parse({ export_type: 'diff', from: '2000-01-01T00:00:00Z' }).success).toBe(false);
  });
  it('refuses unknown columns (per type), repeats, wide pdf tables, unknown fields and filter values', () => {
    expect(parse({ columns: ['domain', 'mx'] }).success).toBe(true);
    expect(parse({ columns: ['nope'] }).success).toBe(false);
    expect(parse({ columns: ['domain', 'domain'] }).success).toBe(false);
    expect(parse({ export_type: 'diff', from: new Date(Date.now() - 86_400_000).toISOString(), columns: ['mx'] }).success).toBe(false);
    expect(parse({ export_type: 'pdf', columns: ['domain', 'mx', 'spf', 'dmarc', 'ns', 'tld', 'tags'] }).success).toBe(false);
    expect(parse({ filters: { dmarc_policy: 'strict' } }).success).toBe(false);
    expect(parse({ filters: { colour: 'red' } }).success).toBe(false);
    expect(parse({ format: 'csv' }).success).toBe(false);
    expect(parse({ export_type: 'xlsx' }).success).toBe(false);
  });
});

describe('netChanges', () => {
  const at = (h: number) => new Date(Date.UTC(2026, 0, 1, h));
  const c = (domain_name: string, field_name: string, old_value: string | null, new_value: string | null, h: number) => ({ domain_name, field_name: field_name as 'mx', old_value, new_value, detected_at: at(h) });
  it('keeps the value before the first and after the last change, drops fields that came back, orders by the given names then tracked field order', () => {
    const rows = netChanges(
      ['b.test', 'a.test', 'c.test'],
      [c('a.test', 'spf', 's1', 's2', 1), c('a.test', 'mx', 'm1', 'm2', 1), c('a.test', 'mx', 'm2', 'm3', 2), c('b.test', 'dmarc_policy_p', 'none', 'reject', 1), c('b.test', 'dmarc_policy_p', 'reject', 'none', 3)],
    );
    expect(rows).toEqual([
      { domain: 'a.test', field_name: 'mx', value_at_from: 'm1', value_at_to: 'm3', changes: 2, first_detected_at: at(1), last_detected_at: at(2) },
      { domain: 'a.test', field_name: 'spf', value_at_from: 's1', value_at_to: 's2', changes: 1, first_detected_at: at(1), last_detected_at: at(1) },
    ]);
  });
});
