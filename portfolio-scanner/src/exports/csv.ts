// CSV cells and lines (RFC 4180: comma, CRLF, quotes doubled). A text cell that a spreadsheet would
// run as a formula (leading = + - @, tab or CR: OWASP "CSV injection") gets a leading apostrophe,
// so opening an export never executes what a DNS record or a user's note put there. A list is
// neutralised element by element: a spreadsheet that splits on `;` makes each one a cell.

const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

export type CellValue = string | number | boolean | Date | null | undefined | readonly string[];

/** One cell: null/undefined empty, dates ISO 8601, string arrays joined with `;`. */
export function csvCell(v: CellValue): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (v instanceof Date) return v.toISOString();
  const s = Array.isArray(v) ? v.map(inert).join(';') : inert(v as string);
  return NEEDS_QUOTES.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

function inert(s: string): string {
  return FORMULA_START.test(s) ? `'${s}` : s;
}

export function csvLine(cells: readonly CellValue[]): string {
  let out = '';
  for (let i = 0; i < cells.length; i++) out += (i === 0 ? '' : ',') + csvCell(cells[i]);
  return `${out}\r\n`;
}
