import { once } from 'node:events';
import PDFDocument from 'pdfkit';
import { domainCells } from './columns.ts';
import { exportDomainFilter } from './params.ts';
import { exportSummary, type ExportSummary } from './report-summary.ts';
import { domainBatches } from './rows.ts';
import type { WriteContext, Written } from './write-context.ts';

// pdf: a readable report. Page 1: what was exported, the headline figures, a bar chart of DMARC
// policies, SPF status and the top gateways (the export's own domains, report-summary.ts); then
// the domains as a table (columns from `columns`, header repeated per page), at most
// PORTFOLIO_EXPORT_PDF_MAX_ROWS of them (a report of a million rows is no report: the csv or zip
// export has them all; the report says so when it stops early). Pages are flushed as they fill.

const MARGIN = 40;
const INK = '#1f2933';
const MUTED = '#616e7c';
const BAR = { reject: '#2f855a', quarantine: '#d69e2e', none: '#c53030', missing: '#a0aec0' } as const;

type Doc = InstanceType<typeof PDFDocument>;

export async function writePdf(w: WriteContext): Promise<Written> {
  const p = w.job.parameters;
  const summary = await exportSummary(w.db, exportDomainFilter(w.source.accountId, p), w.now);
  const doc: Doc = new PDFDocument({ size: 'A4', margin: MARGIN, bufferPages: false, info: { Title: 'Domain portfolio report', Creator: 'portfolio-scanner' } });
  const failed = new Promise<never>((_, reject) => doc.on('error', reject));
  doc.pipe(w.sink.stream, { end: false });
  const ended = once(doc, 'end');

  heading(doc, w, summary);
  let rows = 0;
  const columns = p.columns;
  const limit = Math.min(w.pdfMaxRows, summary.total_domains);
  doc.addPage();
  doc.fillColor(INK).font('Helvetica-Bold').fontSize(14).text(`Domains (${limit.toLocaleString('en-US')}${limit < summary.total_domains ? ` of ${summary.total_domains.toLocaleString('en-US')}` : ''})`);
  doc.moveDown(0.5);
  const table = new Table(doc, columns);
  table.header();
  for await (const batch of domainBatches(w.db, w.source, columns, w.pdfMaxRows)) {
    for (const r of batch) table.row(domainCells(r, columns).map(cellText));
    rows += batch.length;
    // The document is a readable stream: let the file store take what is written before going on.
    if (w.sink.stream.writableNeedDrain) await Promise.race([once(w.sink.stream, 'drain'), failed]);
    await w.progress(rows);
  }
  if (rows < summary.total_domains) {
    doc.moveDown();
    doc.fillColor(MUTED).font('Helvetica-Oblique').fontSize(9).text(`The report lists the first ${rows.toLocaleString('en-US')} domains by id; a csv or zip export has all ${summary.total_domains.toLocaleString('en-US')}.`, MARGIN, doc.y);
  }
  doc.end();
  await Promise.race([ended, failed]);
  return { rowCount: rows };
}

function cellText(v: unknown): string {
  if (v === null || v === undefined) return '-';
  if (v instanceof Date) return v.toISOString().slice(0, 16).replace('T', ' ');
  if (Array.isArray(v)) return v.join(', ');
  return String(v);
}

function heading(doc: Doc, w: WriteContext, s: ExportSummary): void {
  const p = w.job.parameters;
  doc.fillColor(INK).font('Helvetica-Bold').fontSize(20).text('Domain portfolio report');
  doc.font('Helvetica').fontSize(9).fillColor(MUTED).text(`Generated ${w.now.toISOString().replace('T', ' ').slice(0, 19)} UTC · export ${w.job.id} (${w.job._id})`);
  const filters = [...Object.entries(p.filters).map(([k, v]) => `${k} = ${String(v)}`), ...(p.folder_id !== null ? [`folder_id = ${p.folder_id}`] : [])];
  doc.text(`Filters: ${filters.length > 0 ? filters.join(', ') : 'none (all active and inactive domains)'}`);
  doc.moveDown();

  // Headline figures, four boxes across.
  const figures: [string, string][] = [
    ['Domains', s.total_domains.toLocaleString('en-US')],
    ['Need attention', s.needs_attention_count.toLocaleString('en-US')],
    ['Scanned in 24 h', `${s.scan_freshness.percentage_24h}%`],
    ['Scanned in 7 days', `${s.scan_freshness.percentage_7d}%`],
  ];
  const boxW = (doc.page.width - 2 * MARGIN - 3 * 10) / 4;
  const top = doc.y;
  figures.forEach(([label, value], i) => {
    const x = MARGIN + i * (boxW + 10);
    doc.roundedRect(x, top, boxW, 52, 4).fillAndStroke('#f0f4f8', '#d9e2ec');
    doc.fillColor(INK).font('Helvetica-Bold').fontSize(16).text(value, x + 8, top + 9, { width: boxW - 16, lineBreak: false });
    doc.fillColor(MUTED).font('Helvetica').fontSize(9).text(label, x + 8, top + 32, { width: boxW - 16, lineBreak: false });
  });
  doc.y = top + 70;

  // DMARC policy bar chart.
  section(doc, 'DMARC policy');
  const chartTop = doc.y;
  const labelW = 80;
  const barMax = doc.page.width - 2 * MARGIN - labelW - 110;
  const maxCount = Math.max(1, ...Object.values(s.dmarc_distribution).map((d) => d.count));
  (['reject', 'quarantine', 'none', 'missing'] as const).forEach((k, i) => {
    const y = chartTop + i * 20;
    const d = s.dmarc_distribution[k];
    doc.fillColor(INK).font('Helvetica').fontSize(10).text(k, MARGIN, y + 3, { width: labelW, lineBreak: false });
    doc.rect(MARGIN + labelW, y, Math.max(1, (d.count / maxCount) * barMax), 14).fill(BAR[k]);
    doc.fillColor(INK).text(`${d.count.toLocaleString('en-US')} (${d.percentage}%)`, MARGIN + labelW + barMax + 8, y + 3, { width: 100, lineBreak: false });
  });
  doc.y = chartTop + 4 * 20 + 10;

  section(doc, 'SPF');
  kv(doc, [
    ['valid', s.spf_status.valid],
    ['over the 10-lookup limit', s.spf_status.over_limit],
    ['missing', s.spf_status.missing],
  ]);

  section(doc, 'Email gateways (top 10)');
  kv(
    doc,
    s.email_gateway_distribution.slice(0, 10).map((g) => [g.gateway_name, g.count, g.percentage]),
  );
}

function section(doc: Doc, title: string): void {
  doc.moveDown(0.5);
  doc.fillColor(INK).font('Helvetica-Bold').fontSize(12).text(title, MARGIN, doc.y);
  doc.moveDown(0.3);
}

function kv(doc: Doc, rows: [string, number, number?][]): void {
  for (const [k, n, pc] of rows) {
    const y = doc.y;
    doc.fillColor(INK).font('Helvetica').fontSize(10).text(k, MARGIN, y, { width: 260, lineBreak: false, ellipsis: true });
    doc.text(n.toLocaleString('en-US'), MARGIN + 270, y, { width: 80, align: 'right', lineBreak: false });
    if (pc !== undefined) doc.fillColor(MUTED).text(`${pc}%`, MARGIN + 360, y, { width: 60, align: 'right', lineBreak: false });
    doc.y = y + 15;
  }
}

/** A table whose rows are one line each (long values cut with an ellipsis), header on every page. */
class Table {
  private readonly widths: number[];
  private readonly doc: Doc;
  private readonly columns: readonly string[];
  private odd = false;
  constructor(doc: Doc, columns: readonly string[]) {
    this.doc = doc;
    this.columns = columns;
    const total = doc.page.width - 2 * MARGIN;
    // The domain column gets a double share.
    const shares = columns.map((c) => (c === 'domain' || c === 'spf' || c === 'mx' ? 2 : 1));
    const sum = shares.reduce((a, b) => a + b, 0);
    this.widths = shares.map((s) => (s / sum) * total);
  }

  header(): void {
    this.line(this.columns, true);
  }

  row(cells: string[]): void {
    if (this.doc.y + 14 > this.doc.page.height - MARGIN) {
      this.doc.addPage();
      this.header();
    }
    this.line(cells, false);
  }

  private line(cells: readonly string[], head: boolean): void {
    const y = this.doc.y;
    if (head) this.doc.rect(MARGIN, y - 2, this.doc.page.width - 2 * MARGIN, 14).fill('#d9e2ec');
    else if ((this.odd = !this.odd)) this.doc.rect(MARGIN, y - 2, this.doc.page.width - 2 * MARGIN, 14).fill('#f5f7fa');
    this.doc.fillColor(INK).font(head ? 'Helvetica-Bold' : 'Helvetica').fontSize(8);
    let x = MARGIN;
    cells.forEach((c, i) => {
      this.doc.text(c, x + 2, y, { width: this.widths[i]! - 4, height: 10, lineBreak: false, ellipsis: true });
      x += this.widths[i]!;
    });
    this.doc.y = y + 14;
    this.doc.x = MARGIN;
  }
}
