// Pure technology detection over records already fetched: each TECHNOLOGY_TABLE row is tested
// against the values of its source, and every matching row is reported once with its evidence.
import { parseSpfRecord } from '../spf/parser.ts';
import { TECHNOLOGY_TABLE, type TechnologyRow, type TechnologySource } from './technology-table.ts';

export interface DetectedTechnology {
  name: string;
  category: TechnologyRow['category'];
  source: TechnologySource;
  /** The record value that matched, e.g. "google-site-verification=abc" or "ns-1.awsdns-01.org". */
  evidence: string;
}

export type TechnologyEvidence = Partial<Record<TechnologySource, readonly string[]>>;

export function detectTechnology(evidence: TechnologyEvidence, table: readonly TechnologyRow[] = TECHNOLOGY_TABLE): DetectedTechnology[] {
  const found = new Map<string, DetectedTechnology>();
  for (const row of table) {
    const key = `${row.category}|${row.name}`;
    if (found.has(key)) continue;
    const hit = (evidence[row.source] ?? []).find((value) => row.pattern.test(value));
    if (hit !== undefined) found.set(key, { name: row.name, category: row.category, source: row.source, evidence: hit });
  }
  return [...found.values()];
}

/** include: and redirect= targets of an SPF record (macro-free ones only), for the SPF source. */
export function spfTargets(record: string | undefined): string[] {
  if (record === undefined) return [];
  const { record: parsed } = parseSpfRecord(record);
  return parsed.terms.flatMap((t) => ((t.kind === 'include' || t.kind === 'redirect') && !t.domainSpec.hasMacros ? [t.domainSpec.text] : []));
}
