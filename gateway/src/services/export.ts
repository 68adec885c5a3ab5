import type { Response } from 'express';
import { stringify } from 'csv-stringify/sync';
import type { JobDoc, JobItemDoc } from '@dv/contracts';
import type { ResultField } from '../http/schemas.ts';
import { CSV_BASE_COLUMNS, csvRow, neutralizeFormula, resultOfItem, trimFields, type ResultsFilter, type ResultStore } from './results.ts';

// Streaming exports of a job's results: NDJSON (one result per line) and CSV (every row, the
// decision and decision_why columns, then the items' meta columns), both straight from a MongoDB
// cursor with backpressure, so a 25,000-row job never sits in memory.

async function write(res: Response, chunk: string): Promise<void> {
  if (!res.write(chunk)) {
    await new Promise<void>((resolve) => {
      const done = () => {
        res.off('drain', done);
        res.off('close', done);
        resolve();
      };
      res.on('drain', done);
      res.on('close', done);
    });
  }
}

export async function streamNdjson(res: Response, store: ResultStore, job: JobDoc, f: ResultsFilter, fields: readonly ResultField[] | null): Promise<void> {
  res.status(200).setHeader('Content-Type', 'application/x-ndjson; charset=utf-8');
  res.setHeader('Cache-Control', 'private, no-store');
  const cursor = store.cursor(job._id, f);
  try {
    for await (const item of cursor) {
      if (res.destroyed) break;
      await write(res, `${JSON.stringify(trimFields(resultOfItem(item), fields))}\n`);
    }
  } finally {
    await cursor.close();
  }
  res.end();
}

/** Meta columns in the order of the first item's meta (an upload's header order), then any others. */
async function metaColumns(store: ResultStore, jobId: string): Promise<string[]> {
  const first = await store.firstItem(jobId);
  const cols = Object.keys(first?.meta ?? {});
  const more = await store.items
    .aggregate<{ _id: string }>([{ $match: { job_id: jobId, meta: { $type: 'object' } } }, { $project: { k: { $objectToArray: '$meta' } } }, { $unwind: '$k' }, { $group: { _id: '$k.k' } }, { $limit: 200 }])
    .toArray();
  for (const { _id } of more) if (!cols.includes(_id)) cols.push(_id);
  return cols.slice(0, 100);
}

export async function streamCsv(res: Response, store: ResultStore, job: JobDoc, f: ResultsFilter, fileName: string): Promise<void> {
  const meta = await metaColumns(store, job._id);
  const header = [...CSV_BASE_COLUMNS, ...meta.map((m) => ((CSV_BASE_COLUMNS as readonly string[]).includes(m) ? `meta_${m}` : m))];
  res.status(200).setHeader('Content-Type', 'text/csv; charset=utf-8');
  res.setHeader('Content-Disposition', `attachment; filename="${fileName}"`);
  res.setHeader('Cache-Control', 'private, no-store');
  const line = (rows: string[][]) => stringify(rows, { record_delimiter: 'windows' });
  await write(res, line([header.map(neutralizeFormula)]));
  const cursor = store.cursor(job._id, f);
  let batch: string[][] = [];
  try {
    for await (const item of cursor as AsyncIterable<JobItemDoc>) {
      if (res.destroyed) break;
      batch.push(csvRow(item, meta));
      if (batch.length >= 500) {
        await write(res, line(batch));
        batch = [];
      }
    }
    if (batch.length > 0 && !res.destroyed) await write(res, line(batch));
  } finally {
    await cursor.close();
  }
  res.end();
}
