import { describe, expect, it } from 'vitest';
import { gradeFor, unquoteRecord, validateRecord } from './grade.ts';

const codes = (v: ReturnType<typeof validateRecord>) => v.findings.map((f) => f.code).sort();

describe('validateRecord: SPF', () => {
  it.each([
    ['v=spf1 include:_spf.google.com -all', 100, 'A', ['nested_not_counted']],
    ['v=spf1 mx ~all', 95, 'A', ['softfail_all']],
    ['v=spf1 +all', 40, 'F', ['plus_all']],
    ['v=spf1 a mx ?all', 70, 'C', ['neutral_all']],
    ['v=spf1 ip4:192.0.2.1', 80, 'B', ['no_all']],
    ['v=spf1 ptr -all', 90, 'A', ['ptr_used']],
    ['v=spf1 ip4:10.0.0.0/8 -all', 80, 'B', ['broad_ip_range']],
    ['v=spf1 -all a', 95, 'A', ['terms_after_all']],
  ])('%s -> %i %s', (record, score, grade, findings) => {
    const v = validateRecord(record);
    expect(v).toMatchObject({ kind: 'spf', valid: true, score, grade });
    expect(codes(v)).toEqual([...findings].sort());
  });

  it('counts lookup-causing terms against the limit', () => {
    const many = `v=spf1 ${Array.from({ length: 11 }, (_, i) => `a:h${i}.example.com`).join(' ')} -all`;
    const v = validateRecord(many);
    expect(v.lookupTerms).toBe(11);
    expect(codes(v)).toContain('too_many_lookups');
    expect(v.score).toBe(70);
  });

  it('makes a syntax error invalid: score 0, grade F, each error listed', () => {
    const v = validateRecord('v=spf1 ip4:300.1.1.1 foo:bar -all');
    expect(v).toMatchObject({ kind: 'spf', valid: false, score: 0, grade: 'F' });
    expect(v.errors.map((e) => e.code)).toEqual(['invalid_ip4', 'unknown_mechanism']);
  });

  it('joins a quoted zone-file paste', () => {
    expect(unquoteRecord('"v=spf1 include:a.example" " -all"')).toBe('v=spf1 include:a.example -all');
    expect(validateRecord('"v=spf1 " "-all"').valid).toBe(true);
  });
});

describe('validateRecord: DMARC', () => {
  it.each([
    ['v=DMARC1; p=reject; rua=mailto:d@example.com; adkim=s; aspf=s', 100, 'A', []],
    ['v=DMARC1; p=reject; rua=mailto:d@example.com', 100, 'A', ['relaxed_alignment']],
    ['v=DMARC1; p=none', 55, 'F', ['no_rua', 'p_none', 'relaxed_alignment']],
    ['v=DMARC1; p=quarantine; pct=25; rua=mailto:d@example.com', 85, 'B', ['p_quarantine', 'pct_below_100', 'relaxed_alignment']],
    ['v=DMARC1; p=reject; sp=none; rua=mailto:d@example.com', 90, 'A', ['relaxed_alignment', 'sp_weaker']],
  ])('%s -> %i %s', (record, score, grade, findings) => {
    const v = validateRecord(record);
    expect(v).toMatchObject({ kind: 'dmarc', valid: true, score, grade });
    expect(codes(v)).toEqual([...findings].sort());
  });

  it('is invalid with a bad tag value', () => {
    const v = validateRecord('v=DMARC1; p=maybe; rua=mailto:d@example.com');
    expect(v).toMatchObject({ valid: false, score: 0, grade: 'F' });
    expect(v.errors[0]?.code).toBe('invalid_policy');
  });

  it('rejects text that is neither', () => {
    expect(validateRecord('hello world')).toMatchObject({ kind: 'unknown', valid: false, grade: 'F' });
  });
});

describe('gradeFor', () => {
  it.each([
    [100, 'A'],
    [90, 'A'],
    [89, 'B'],
    [70, 'C'],
    [60, 'D'],
    [59, 'F'],
  ])('%i -> %s', (score, grade) => expect(gradeFor(score)).toBe(grade));
});
