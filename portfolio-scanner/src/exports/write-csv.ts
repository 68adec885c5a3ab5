import { PORTFOLIO_DEFAULTS } from '../defaults.ts';
import { diffCells, domainCells } from './columns.ts';
import { csvLine } from './csv.ts';
import { diffBatches, domainBatches } from './rows.ts';
import type { WriteContext, Written } from './write-context.ts';

// csv: a header line, then one line per domain in id order, one write per batch.
export async function writeCsv(w: WriteContext): Promise<Written> {
  const columns = w.job.parameters.columns;
  await w.sink.write(csvLine(columns));
  let rows = 0;
  // Up to exportWriteAheadBatches batches go to the file store while the next are read (memory:
  // that many batches' text); writes reach the upload stream in order as they are made.
  const writing: Promise<void>[] = [];
  for await (const batch of domainBatches(w.db, w.source, columns)) {
    let text = '';
    for (const r of batch) text += csvLine(domainCells(r, columns));
    const written = w.sink.write(text);
    // Awaited below or in turn; a failure meanwhile must not go unhandled.
    written.catch(() => undefined);
    writing.push(written);
    if (writing.length >= PORTFOLIO_DEFAULTS.exportWriteAheadBatches) await writing.shift();
    rows += batch.length;
    await w.progress(rows);
  }
  for (const p of writing) await p;
  return { rowCount: rows };
}

// diff: CSV of the net changes of the export's domains between `from` and `to`.
export async function writeDiff(w: WriteContext): Promise<Written> {
  const columns = w.job.parameters.columns;
  await w.sink.write(csvLine(columns));
  let rows = 0;
  let read = 0;
  for await (const batch of diffBatches(w.db, w.source)) {
    let text = '';
    for (const r of batch.rows) text += csvLine(diffCells(r, columns));
    if (text) await w.sink.write(text);
    rows += batch.rows.length;
    read += batch.domains;
    await w.progress(read);
  }
  return { rowCount: rows };
}
