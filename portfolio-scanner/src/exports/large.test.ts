import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { ObjectId } from 'mongodb';
import { COLLECTIONS, EXPORT_FILES_BUCKET, PORTFOLIO_PLANS, type ExportDoc } from '@dv/contracts';
import { createLogger } from '@dv/runtime';
import { startHarness, type Harness } from '../api/testing/harness.ts';
import { claimExport, queueExport } from './jobs.ts';
import { exportLimits } from './quota.ts';
import { exportBucket } from './sink.ts';
import { seedPortfolio } from './testing/seed.ts';
import { ExportWorker, type ExportSettings } from './worker.ts';

// A csv export of 100,000 rows with the production batch size: exact counts, and memory that does
// not grow with the rows. While the export runs, a sampler collects garbage and reads the live heap
// (what is retained, not what V8 has yet to collect, which depends on load): holding the rows
// (100,000 account documents, ~1 KB each as objects, plus their CSV text) would retain well over
// 100 MB, a streamed export a few batches. No time is measured.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const N = 100_000;
const SETTINGS: ExportSettings = { concurrency: 1, pollMs: 50, leaseMs: 30_000, maxAttempts: 3, batchRows: 1_000, chunkBytes: 1_048_576, ttlS: 3600, pdfMaxRows: 10_000, sweepIntervalMs: 3_600_000 };
const HEAP_GROWTH_LIMIT_MB = 32;
let h: Harness;
let accountId: string;

beforeAll(async () => {
  h = await startHarness('pexportlarge');
  accountId = (await h.account('enterprise_max')).accountId;
  await seedPortfolio(h.db, accountId, N);
}, 600_000);
afterAll(async () => h?.close());

describe('a 100,000-row csv export', () => {
  it('writes every row once with exact row_count and file_size, in bounded memory', async () => {
    const { task_id } = await queueExport({ db: h.db, limits: { ...exportLimits(PORTFOLIO_PLANS.enterprise_max), maxRows: 100_000 } }, { _id: accountId }, { columns: ['id', 'domain', 'email_gateway', 'dmarc_policy_p', 'spf', 'mx', 'scanned_at', 'tags'] });
    const worker = new ExportWorker(h.db, createLogger('export-large', 'silent'), SETTINGS);
    const job = (await claimExport(h.db, worker.id, SETTINGS.leaseMs, SETTINGS.maxAttempts))!;
    expect(job._id).toBe(task_id);
    gc();
    const base = process.memoryUsage().heapUsed;
    let peak = base;
    let samples = 0;
    const sampler = setInterval(() => {
      gc();
      samples++;
      peak = Math.max(peak, process.memoryUsage().heapUsed);
    }, 500);
    try {
      await worker.run(job);
    } finally {
      clearInterval(sampler);
    }
    const done = (await h.db.collection<ExportDoc>(COLLECTIONS.portfolioExports.name).findOne({ _id: task_id }))!;
    expect(done).toMatchObject({ status: 'completed', row_count: N, error: null });
    const growthMb = (peak - base) / 1_048_576;
    expect(samples).toBeGreaterThan(5);
    expect(growthMb, `live heap grew ${growthMb.toFixed(1)} MB`).toBeLessThan(HEAP_GROWTH_LIMIT_MB);

    // The stored file: its length is file_size; read back as a stream, it has the header and N lines, ids 1..N once each in order.
    const file = await h.db.collection(`${EXPORT_FILES_BUCKET}.files`).findOne({ _id: done.file_id as ObjectId });
    expect(file?.length).toBe(done.file_size);
    let lines = 0;
    let bytes = 0;
    let rest = '';
    let nextId = 1;
    let ordered = true;
    for await (const chunk of exportBucket(h.db).openDownloadStream(done.file_id as ObjectId)) {
      bytes += (chunk as Buffer).length;
      const parts = (rest + (chunk as Buffer).toString()).split('\r\n');
      rest = parts.pop()!;
      for (const line of parts) {
        if (lines++ === 0) continue;
        if (Number(line.slice(0, line.indexOf(','))) !== nextId++) ordered = false;
      }
    }
    expect(rest).toBe('');
    expect(bytes).toBe(done.file_size);
    expect(lines).toBe(N + 1);
    expect(ordered).toBe(true);
  }, 600_000);
});
