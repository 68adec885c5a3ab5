import { scanResult, type AccountDomainDoc, type ScanResult } from '@dv/contracts';
import type { CellValue } from './csv.ts';

// Export columns as data (docs/portfolio-scanner.md "Exports"): every field of the domain list item
// and detail the account document holds, then every scan result field it does not (read from the
// corpus, batch by batch, only when such a column is asked for). `diff` has its own columns.

export interface DomainRow {
  a: AccountDomainDoc;
  /** The corpus's latest scan; loaded only when a scan column is asked for. */
  scan: ScanResult | null;
}

interface Column {
  /** `scan` columns need the corpus document (one extra read per batch of rows). */
  source: 'account' | 'scan';
  get: (r: DomainRow) => CellValue;
}

const acc = (get: (a: AccountDomainDoc) => CellValue): Column => ({ source: 'account', get: (r) => get(r.a) });

const ACCOUNT_COLUMNS: Record<string, Column> = {
  id: acc((a) => a.id),
  domain: acc((a) => a.domain),
  email_gateway: acc((a) => a.email_gateway),
  dmarc_policy_p: acc((a) => a.dmarc_policy_p),
  spf: acc((a) => a.spf),
  scanned_at: acc((a) => a.scanned_at),
  added_at: acc((a) => a.added_at),
  folder_id: acc((a) => a.folder_id),
  is_favorite: acc((a) => a.is_favorite),
  tags: acc((a) => a.tags),
  tld: acc((a) => a.tld),
  status: acc((a) => a.status),
  notes: acc((a) => a.notes),
  custom_label: acc((a) => a.custom_label),
  spf_total_lookups: acc((a) => a.spf_total_lookups),
  spf_limit: acc((a) => a.spf_limit),
  needs_attention: acc((a) => a.needs_attention),
  last_change_at: acc((a) => a.last_change_at),
};

const SCAN_COLUMNS: Record<string, Column> = Object.fromEntries(
  Object.keys(scanResult.shape)
    .filter((k) => !(k in ACCOUNT_COLUMNS))
    .map((k) => [k, { source: 'scan', get: (r: DomainRow) => (r.scan ? (r.scan[k as keyof ScanResult] as CellValue) : null) } satisfies Column]),
);

export const DOMAIN_COLUMNS: Readonly<Record<string, Column>> = { ...ACCOUNT_COLUMNS, ...SCAN_COLUMNS };
export const DOMAIN_COLUMN_NAMES = Object.keys(DOMAIN_COLUMNS);

/** csv and zip without `columns`: the fields of the domain list item, in its order. */
export const DEFAULT_DOMAIN_COLUMNS = ['id', 'domain', 'email_gateway', 'dmarc_policy_p', 'spf', 'scanned_at', 'added_at', 'folder_id', 'is_favorite', 'tags'];
/** pdf without `columns`: the domain table of the report (it fits a page's width). */
export const DEFAULT_PDF_COLUMNS = ['domain', 'email_gateway', 'dmarc_policy_p', 'spf_total_lookups', 'scanned_at'];
export const PDF_MAX_COLUMNS = 6;

/** A `diff` row: one tracked field of one domain that differs between `from` and `to`. */
export interface DiffRow {
  domain: string;
  field_name: string;
  value_at_from: string | null;
  value_at_to: string | null;
  changes: number;
  first_detected_at: Date;
  last_detected_at: Date;
}
export const DIFF_COLUMN_NAMES = ['domain', 'field_name', 'value_at_from', 'value_at_to', 'changes', 'first_detected_at', 'last_detected_at'] as const;

/** The account-document fields the columns read (a projection: the export reads no more than it writes). */
export function accountProjection(columns: readonly string[]): Record<string, 1 | 0> {
  const p: Record<string, 1 | 0> = { _id: 0, domain: 1 };
  for (const c of columns) if (DOMAIN_COLUMNS[c]?.source === 'account') p[c] = 1;
  return p;
}

export function needsScan(columns: readonly string[]): boolean {
  return columns.some((c) => DOMAIN_COLUMNS[c]?.source === 'scan');
}

/** The cells of a row for the chosen columns. */
export function domainCells(r: DomainRow, columns: readonly string[]): CellValue[] {
  return columns.map((c) => DOMAIN_COLUMNS[c]!.get(r));
}

/** A row as a JSON object (dates as ISO strings) for the zip's domains.json. */
export function domainJson(r: DomainRow, columns: readonly string[]): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  for (const c of columns) {
    const v = DOMAIN_COLUMNS[c]!.get(r);
    o[c] = v instanceof Date ? v.toISOString() : (v ?? null);
  }
  return o;
}

export function diffCells(r: DiffRow, columns: readonly string[]): CellValue[] {
  return columns.map((c) => r[c as keyof DiffRow]);
}
