// validate: syntax check and grade of a pasted SPF or DMARC record. No DNS query is made.
import { validateRecord } from '../validate/grade.ts';
import type { ToolContext } from './context.ts';
import { formatReport, makeMeta, plural } from './output.ts';
import { TargetError, type ToolInput, type ToolOutput } from './types.ts';

/** Longest record accepted: a TXT answer cannot carry more than 64 KiB anyway. */
const MAX_RECORD_CHARS = 65_535;

export async function validateTool(ctx: ToolContext, input: ToolInput): Promise<ToolOutput> {
  const text = input.record ?? '';
  if (text.trim() === '') throw new TargetError('a record to validate is required (the pasted SPF or DMARC text)');
  if (text.length > MAX_RECORD_CHARS) throw new TargetError(`the record is longer than ${MAX_RECORD_CHARS} characters`);
  const v = validateRecord(text);
  const kindName = v.kind === 'spf' ? 'SPF' : v.kind === 'dmarc' ? 'DMARC' : 'unknown';
  const result: Record<string, string> = {
    'Record Type': kindName,
    Record: v.record,
    Valid: v.valid ? 'yes' : 'no',
    Score: `${v.score}/100`,
    Grade: v.grade,
  };
  if (v.errors.length > 0) result.Errors = v.errors.map((e) => e.message).join('\n');
  result.Findings = v.findings.length > 0 ? v.findings.map((f) => `${f.points > 0 ? `-${f.points}` : ' 0'} ${f.message}${f.term ? ` (${f.term})` : ''}`).join('\n') : 'none';
  if (v.lookupTerms !== undefined) result['DNS Lookup Terms'] = String(v.lookupTerms);
  const summary =
    v.kind === 'unknown'
      ? 'This is not an SPF ("v=spf1 ...") or DMARC ("v=DMARC1; ...") record.'
      : v.valid
        ? `Valid ${kindName} record: score ${v.score}/100, grade ${v.grade}${v.findings.length > 0 ? ` (${plural(v.findings.length, 'finding')})` : ''}.`
        : `Invalid ${kindName} record (${plural(v.errors.length, 'syntax error')}): ${v.errors[0]?.message ?? ''}.`;
  return {
    summary,
    result,
    data: { meta: makeMeta(ctx, '', null, 'not_checked', { record_type: v.kind }), records: v.kind === 'unknown' ? {} : { [kindName]: [v.record] }, validation: v },
    report: formatReport(`${kindName} record validation`, ctx.now().toISOString(), result),
  };
}
