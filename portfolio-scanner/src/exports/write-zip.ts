import { once } from 'node:events';
import { Readable } from 'node:stream';
import { ZipFile } from 'yazl';
import { domainCells, domainJson } from './columns.ts';
import { csvLine } from './csv.ts';
import { exportDomainFilter } from './params.ts';
import { exportSummary } from './report-summary.ts';
import { domainBatches } from './rows.ts';
import type { WriteContext, Written } from './write-context.ts';

// zip: domains.csv (as the csv export), domains.json (the same rows as a JSON array with typed
// values), summary.json (the report's figures over the same domains) and manifest.json (parameters,
// counts, time), deflated. yazl writes entries one after another and reads an entry's stream only
// when it is its turn, so each is its own cursor pass and nothing is held in memory. The two passes
// are moments apart: a scan landing in between can change a value, and manifest.json gives each
// file's row count (row_count is domains.csv's).

export async function writeZip(w: WriteContext): Promise<Written> {
  const columns = w.job.parameters.columns;
  const zip = new ZipFile();
  const counts = { csv: 0, json: 0 };
  let jsonDone!: () => void;
  const jsonFinished = new Promise<void>((r) => (jsonDone = r));

  async function* csv() {
    yield Buffer.from(csvLine(columns));
    for await (const batch of domainBatches(w.db, w.source, columns)) {
      let text = '';
      for (const r of batch) text += csvLine(domainCells(r, columns));
      counts.csv += batch.length;
      await w.progress(Math.floor(counts.csv / 2));
      yield Buffer.from(text);
    }
  }
  async function* json() {
    yield Buffer.from('[');
    for await (const batch of domainBatches(w.db, w.source, columns)) {
      let text = '';
      for (const r of batch) text += (counts.json++ === 0 ? '\n' : ',\n') + JSON.stringify(domainJson(r, columns));
      await w.progress(Math.floor((counts.csv + counts.json) / 2));
      yield Buffer.from(text);
    }
    yield Buffer.from('\n]\n');
    jsonDone();
  }

  const failed = new Promise<never>((_, reject) => zip.on('error', reject));
  zip.outputStream.pipe(w.sink.stream, { end: false });
  const ended = once(zip.outputStream, 'end');
  const mtime = w.now;
  // Lazy: an entry's cursor opens when yazl reaches it; a failing read fails the archive.
  const entry = (gen: () => AsyncGenerator<Buffer>) => (cb: (err: Error | null, stream: Readable) => void) => {
    const stream = Readable.from(gen(), { objectMode: false });
    stream.on('error', (err) => zip.emit('error', err));
    cb(null, stream);
  };
  zip.addReadStreamLazy('domains.csv', { mtime }, entry(csv));
  zip.addReadStreamLazy('domains.json', { mtime }, entry(json));
  await Promise.race([jsonFinished, failed]);
  const summary = await exportSummary(w.db, exportDomainFilter(w.source.accountId, w.job.parameters), w.now);
  zip.addBuffer(Buffer.from(`${JSON.stringify(summary, null, 2)}\n`), 'summary.json', { mtime });
  const manifest = { task_id: w.job._id, export_type: 'zip', generated_at: w.now.toISOString(), parameters: w.job.parameters, files: { 'domains.csv': { rows: counts.csv }, 'domains.json': { rows: counts.json } } };
  zip.addBuffer(Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`), 'manifest.json', { mtime });
  zip.end();
  await Promise.race([ended, failed]);
  return { rowCount: counts.csv };
}
