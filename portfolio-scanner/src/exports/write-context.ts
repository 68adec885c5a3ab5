import type { Db } from 'mongodb';
import type { ExportDoc } from '@dv/contracts';
import type { RowSource } from './rows.ts';
import type { FileSink } from './sink.ts';

/** What a writer of one export type gets. */
export interface WriteContext {
  db: Db;
  job: ExportDoc;
  sink: FileSink;
  source: RowSource;
  /** Called after each batch with the domains read so far; renews the worker's lease (throws when it was lost). */
  progress: (domainsRead: number) => Promise<void>;
  /** pdf: domains listed in the report at most. */
  pdfMaxRows: number;
  now: Date;
}

/** A writer's result: rows in the file (pdf: rows of its domain table; zip: rows of domains.csv). */
export interface Written {
  rowCount: number;
}

/** Each export type's file name extension and content type. */
export const EXPORT_FORMATS = {
  csv: { ext: 'csv', contentType: 'text/csv; charset=utf-8' },
  diff: { ext: 'csv', contentType: 'text/csv; charset=utf-8' },
  pdf: { ext: 'pdf', contentType: 'application/pdf' },
  zip: { ext: 'zip', contentType: 'application/zip' },
} as const;
