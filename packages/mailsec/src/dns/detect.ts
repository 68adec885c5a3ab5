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
  for (const { row, key } of keyedRows(table)) {
    // A scan calls this twice per domain over ~100 rows: most sources are empty, and the keys are made once per table.
    const values = evidence[row.source];
    if (values === undefined || values.length === 0 || found.has(key)) continue;
    const hit = values.find((value) => row.pattern.test(value));
    if (hit !== undefined) found.set(key, { name: row.name, category: row.category, source: row.source, evidence: hit });
  }
  return [...found.values()];
}

const KEYED = new WeakMap<readonly TechnologyRow[], readonly { row: TechnologyRow; key: string }[]>();

/** Each row with its "category|name" key (one technology is reported once), computed once per table. */
function keyedRows(table: readonly TechnologyRow[]): readonly { row: TechnologyRow; key: string }[] {
  let keyed = KEYED.get(table);
  if (!keyed) {
    keyed = table.map((row) => ({ row, key: `${row.category}|${row.name}` }));
    KEYED.set(table, keyed);
  }
  return keyed;
}

/** include: and redirect= targets of an SPF record (macro-free ones only), for the SPF source. */
export function spfTargets(record: string | undefined): string[] {
  if (record === undefined) return [];
  const { record: parsed } = parseSpfRecord(record);
  return parsed.terms.flatMap((t) => ((t.kind === 'include' || t.kind === 'redirect') && !t.domainSpec.hasMacros ? [t.domainSpec.text] : []));
}
