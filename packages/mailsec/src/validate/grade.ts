// The validate tool: syntax-checks a pasted SPF or DMARC record (no DNS) and grades it by the
// rubric. Pure.
import { parseDmarcRecord, isDmarcRecordText } from '../dmarc/parse.ts';
import { parseSpfRecord, isSpfRecordText } from '../spf/parser.ts';
import { BROAD_RANGE_PREFIX, DMARC_RUBRIC, GRADE_THRESHOLDS, SPF_RUBRIC, type RubricRule } from './rubric.ts';

export type Grade = 'A' | 'B' | 'C' | 'D' | 'F';

export interface Finding {
  code: string;
  severity: RubricRule['severity'];
  points: number;
  message: string;
  term?: string;
}

export interface Validation {
  kind: 'spf' | 'dmarc' | 'unknown';
  /** The record as evaluated (quotes of a zone-file paste removed). */
  record: string;
  valid: boolean;
  score: number;
  grade: Grade;
  /** Syntax errors (any one makes the record invalid). */
  errors: { code: string; message: string; term?: string }[];
  /** Rubric findings, largest deduction first. */
  findings: Finding[];
  /** SPF: DNS-querying terms in the record itself. */
  lookupTerms?: number;
}

/** A zone-file or DNS-tool paste ("v=spf1 " "-all") becomes the joined record text. */
export function unquoteRecord(text: string): string {
  const t = text.trim();
  if (!t.startsWith('"')) return t;
  const parts = [...t.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => (m[1] ?? '').replace(/\\(.)/g, '$1'));
  return parts.length > 0 ? parts.join('') : t;
}

export function gradeFor(score: number): Grade {
  return GRADE_THRESHOLDS.find((t) => score >= t.minScore)?.grade ?? 'F';
}

export function validateRecord(input: string): Validation {
  const record = unquoteRecord(input);
  if (isSpfRecordText(record)) return validateSpf(record);
  if (isDmarcRecordText(record)) return validateDmarc(record);
  return {
    kind: 'unknown',
    record,
    valid: false,
    score: 0,
    grade: 'F',
    errors: [{ code: 'unknown_record', message: 'not an SPF ("v=spf1 ...") or DMARC ("v=DMARC1; ...") record' }],
    findings: [],
  };
}

function finish(kind: 'spf' | 'dmarc', record: string, errors: Validation['errors'], findings: Finding[], extra: Partial<Validation> = {}): Validation {
  findings.sort((a, b) => b.points - a.points);
  const valid = errors.length === 0;
  const score = valid ? Math.max(0, 100 - findings.reduce((n, f) => n + f.points, 0)) : 0;
  return { kind, record, valid, score, grade: valid ? gradeFor(score) : 'F', errors, findings, ...extra };
}

function finding(rubric: Record<string, RubricRule>, code: string, term?: string, message?: string): Finding {
  const rule = rubric[code] as RubricRule;
  return { code, severity: rule.severity, points: rule.points, message: message ?? rule.message, ...(term !== undefined ? { term } : {}) };
}

function validateSpf(record: string): Validation {
  const { record: spf, errors: syntax } = parseSpfRecord(record);
  const errors = syntax.map((e) => ({ code: e.code, message: e.message, ...(e.term !== undefined ? { term: e.term } : {}) }));
  const findings: Finding[] = [];
  const add = (code: keyof typeof SPF_RUBRIC, term?: string) => {
    if (!findings.some((f) => f.code === code)) findings.push(finding(SPF_RUBRIC, code, term));
  };
  const all = spf.mechanisms.find((m) => m.kind === 'all');
  if (all?.qualifier === '+') add('plus_all', all.raw);
  else if (all?.qualifier === '?') add('neutral_all', all.raw);
  else if (all?.qualifier === '~') add('softfail_all', all.raw);
  else if (!all && !spf.redirect) add('no_all');
  if (all && spf.redirect) add('redirect_ignored', spf.redirect.raw);
  const allIndex = all ? spf.terms.indexOf(all) : -1;
  if (allIndex >= 0 && spf.terms.slice(allIndex + 1).some((t) => t.kind !== 'exp' && t.kind !== 'unknown')) add('terms_after_all');
  for (const m of spf.mechanisms) {
    if (m.kind === 'ptr') add('ptr_used', m.raw);
    if ((m.kind === 'ip4' && m.prefix < BROAD_RANGE_PREFIX.ip4) || (m.kind === 'ip6' && m.prefix < BROAD_RANGE_PREFIX.ip6)) {
      if (m.qualifier !== '-') add('broad_ip_range', m.raw);
    }
  }
  const lookupTerms =
    spf.mechanisms.filter((m) => m.kind === 'include' || m.kind === 'a' || m.kind === 'mx' || m.kind === 'ptr' || m.kind === 'exists').length +
    (spf.redirect && !all ? 1 : 0);
  if (lookupTerms > 10) add('too_many_lookups');
  else if (lookupTerms >= 8) add('near_lookup_limit');
  const bytes = Buffer.byteLength(record, 'utf8');
  if (bytes > 512) add('record_too_long');
  if (bytes > 255) add('needs_splitting');
  if (spf.mechanisms.some((m) => m.kind === 'include') || spf.redirect) add('nested_not_counted');
  return finish('spf', record, errors, findings, { lookupTerms });
}

function validateDmarc(record: string): Validation {
  const parsed = parseDmarcRecord(record);
  const errors = parsed.errors.map((e) => ({ code: e.code, message: e.message, ...(e.tag !== undefined ? { term: e.tag } : {}) }));
  const findings: Finding[] = [];
  const r = parsed.record;
  const add = (code: keyof typeof DMARC_RUBRIC, term?: string, message?: string) => {
    if (!findings.some((f) => f.code === code && f.term === term)) findings.push(finding(DMARC_RUBRIC, code, term, message));
  };
  if (r.p === 'none') add('p_none', 'p');
  if (r.p === 'quarantine') add('p_quarantine', 'p');
  if (r.rua.length === 0) add('no_rua', 'rua');
  if (r.tags.pct !== undefined && r.pct < 100) add('pct_below_100', 'pct');
  if (r.sp === 'none' && (r.p === 'quarantine' || r.p === 'reject')) add('sp_weaker', 'sp');
  if (r.adkim === 'r' || r.aspf === 'r') add('relaxed_alignment');
  for (const w of parsed.warnings) {
    if (w.code === 'unknown_tag' || w.code === 'non_mailto_uri' || w.code === 'version_case' || w.code === 'p_not_second') add(w.code, w.tag, w.message);
    else add('other_warning', w.tag, w.message);
  }
  return finish('dmarc', record, errors, findings);
}
