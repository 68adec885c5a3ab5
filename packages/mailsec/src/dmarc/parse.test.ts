import { describe, expect, it } from 'vitest';
import { parseDmarcRecord, parseReportUri } from './parse.ts';

const codes = (list: { code: string }[]) => list.map((p) => p.code);

describe('parseDmarcRecord', () => {
  it('parses every tag and applies defaults', () => {
    const r = parseDmarcRecord('v=DMARC1; p=reject; sp=quarantine; pct=50; rua=mailto:a@example.com!10m, mailto:b@example.net; ruf=mailto:f@example.com; adkim=s; aspf=r; fo=1:d; ri=3600;');
    expect(r.valid).toBe(true);
    expect(r.record).toMatchObject({ p: 'reject', sp: 'quarantine', pct: 50, adkim: 's', aspf: 'r', fo: ['1', 'd'], ri: 3600 });
    expect(r.record.rua.map((u) => [u.address, u.domain, u.maxSizeBytes])).toEqual([
      ['a@example.com', 'example.com', 10 * 1024 * 1024],
      ['b@example.net', 'example.net', undefined],
    ]);
    expect(parseDmarcRecord('v=DMARC1; p=none').record).toMatchObject({ pct: 100, adkim: 'r', aspf: 'r', fo: ['0'], ri: 86400 });
  });

  it.each([
    ['v=DMARC1; p=maybe', 'invalid_policy'],
    ['v=DMARC1; p=none; pct=150', 'invalid_pct'],
    ['v=DMARC1; p=none; adkim=x', 'invalid_alignment'],
    ['v=DMARC1; p=none; fo=2', 'invalid_fo'],
    ['v=DMARC1; p=none; ri=soon', 'invalid_ri'],
    ['v=DMARC1; p=none; rua=dmarc@example.com', 'invalid_uri'],
    ['v=DMARC1; p=none; p=reject', 'duplicate_tag'],
    ['v=DMARC1; rua=mailto:a@example.com', 'missing_p'],
    ['v=DMARC1; p=none; garbage', 'malformed_tag'],
    ['v=spf1 -all', 'not_dmarc1'],
  ])('%s -> error %s', (text, code) => {
    const r = parseDmarcRecord(text);
    expect(r.valid).toBe(false);
    expect(codes(r.errors)).toContain(code);
  });

  it('warns about unknown tags, non-mailto URIs and the version case', () => {
    const r = parseDmarcRecord('v=dmarc1; p=none; foo=bar; rua=https://reports.example.com/dmarc');
    expect(r.valid).toBe(true);
    expect(codes(r.warnings)).toEqual(expect.arrayContaining(['unknown_tag', 'non_mailto_uri', 'version_case']));
  });

  it('parses report URIs', () => {
    expect(parseReportUri('mailto:x@example.com!5k')).toMatchObject({ scheme: 'mailto', domain: 'example.com', maxSizeBytes: 5120 });
    expect(parseReportUri('mailto:nobody')).toBeNull();
    expect(parseReportUri('not a uri')).toBeNull();
  });
});
