import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { accountDomainId, accountDomainSummary, COLLECTIONS, type AccountDomainDoc, type ExportDoc } from '@dv/contracts';
import { createLogger } from '@dv/runtime';
import { queueExport } from '../exports/index.ts';
import { ExportWorker } from '../exports/worker.ts';
import { startHarness, type Harness } from './testing/harness.ts';

// The per-plan limits (PORTFOLIO_PLANS) under concurrency, against the real API app and MongoDB:
// parallel requests never get past a limit, over-limit calls are answered in the envelope with a
// detail naming the limit, and the API root shows the usage. Figures are the plan table's:
// Enterprise 10,000 domains, 3 pending and 20 stored exports, 1 GiB stored, 20,000 rows an export;
// Enterprise Max 50,000 domains, 5 pending and 50 stored exports.

vi.setConfig({ testTimeout: 120_000 });
const GIB = 1024 ** 3;
let h: Harness;
const exportsOf = () => h.db.collection<ExportDoc>(COLLECTIONS.portfolioExports.name);
const domainsOf = () => h.db.collection<AccountDomainDoc>(COLLECTIONS.portfolioDomains.name);

/** `n` domains of the account written directly (as if added long ago), ids from `firstId`. */
async function seedDomains(accountId: string, n: number, status: AccountDomainDoc['status'], firstId = 1, label = 'seed') {
  const now = new Date();
  const docs: AccountDomainDoc[] = [];
  for (let i = 0; i < n; i++) {
    const domain = `${label}${firstId + i}.example.test`;
    docs.push({ _id: accountDomainId(accountId, domain), id: firstId + i, account_id: accountId, domain, tld: 'test', added_at: now, status, removed_at: status === 'removed' ? now : null, folder_id: null, is_favorite: false, tags: [], notes: null, custom_label: null, ...accountDomainSummary(null, null) });
  }
  await domainsOf().insertMany(docs, { ordered: false });
  // Later adds take ids after these.
  await h.db.collection(COLLECTIONS.counters.name).updateOne({ _id: `portfolio_domains:${accountId}` as never }, { $set: { seq: firstId + n - 1 } }, { upsert: true });
}

/** Finished exports of the account, as a worker leaves them. */
async function seedExports(accountId: string, n: number, fileSize: number, firstId = 1000) {
  const now = new Date();
  await exportsOf().insertMany(
    Array.from({ length: n }, (_, i): ExportDoc => ({
      _id: `exp_seed_${accountId}_${firstId + i}`, id: firstId + i, account_id: accountId, export_type: 'csv', status: 'completed', parameters: { folder_id: null, columns: ['domain'], filters: {} },
      row_count: 1, file_size: fileSize, rows_done: 1, rows_expected: 1, file_id: null, file_name: 'x.csv', content_type: 'text/csv', error: null, attempts: 1, lease_until: null, worker: null,
      created_at: now, started_at: now, completed_at: now, expires_at: new Date(now.getTime() + 86_400_000),
    })),
  );
}

beforeAll(async () => {
  h = await startHarness('plimits');
});
afterAll(async () => h?.close());

describe('exports', () => {
  it('40 parallel POSTs queue exactly the plan\'s 5 pending exports; the rest are 409 too_many_exports naming the limit; the API root shows the usage', async () => {
    const c = await h.account('enterprise_max');
    const replies = await Promise.all(Array.from({ length: 40 }, () => h.call('POST', '/api/v1/exports/', { key: c.key, body: {} })));
    const statuses = replies.map((r) => r.status);
    expect(statuses.filter((s) => s === 202)).toHaveLength(5);
    expect(statuses.filter((s) => s === 409)).toHaveLength(35);
    const refused = replies.find((r) => r.status === 409)!;
    expect(refused.body).toEqual({ status: 'error', data: null, meta: {}, errors: [{ code: 'too_many_exports', detail: expect.stringContaining('at most 5 exports queued or in progress on the Enterprise Max plan') }] });
    expect(await exportsOf().countDocuments({ account_id: c.accountId, status: { $in: ['queued', 'processing'] } })).toBe(5);

    const root = await h.call('GET', '/api/v1/', { key: c.key });
    expect(root.body.data.usage).toEqual({
      domains: { used: 0, limit: 50_000 },
      exports_pending: { used: 5, limit: 5 },
      exports_stored: { used: 5, limit: 50 },
      export_storage_bytes: { used: 0, limit: 5 * GIB },
    });
    expect(root.body.data.plan).toMatchObject({ max_domains: 50_000, max_pending_exports: 5, max_stored_exports: 50, max_export_storage_bytes: 5 * GIB, max_export_rows: 100_000 });
  });

  it('a pending export leaves its slot when it finishes, so the next one is queued', async () => {
    const c = await h.account('enterprise');
    const first = await Promise.all(Array.from({ length: 6 }, () => h.call('POST', '/api/v1/exports/', { key: c.key, body: {} })));
    expect(first.filter((r) => r.status === 202)).toHaveLength(3);
    // A worker writes one (two rows at most: an empty account), freeing its place.
    const worker = new ExportWorker(h.db, createLogger('limits-test', 'silent'), { concurrency: 1, pollMs: 50, leaseMs: 30_000, maxAttempts: 3, batchRows: 10, chunkBytes: 1024, ttlS: 3600, pdfMaxRows: 3, sweepIntervalMs: 3_600_000 });
    const job = (await exportsOf().findOne({ account_id: c.accountId, status: 'queued' }))!;
    await exportsOf().updateOne({ _id: job._id }, { $set: { status: 'processing', worker: worker.id, attempts: 1, lease_until: new Date(Date.now() + 60_000) } });
    await worker.run((await exportsOf().findOne({ _id: job._id }))!);
    expect((await exportsOf().findOne({ _id: job._id }))!.status).toBe('completed');
    const next = await Promise.all(Array.from({ length: 4 }, () => h.call('POST', '/api/v1/exports/', { key: c.key, body: {} })));
    expect(next.filter((r) => r.status === 202)).toHaveLength(1);
  });

  it('stored exports: the plan\'s 20 finished exports kept are the most; the 21st is 409 export_limit_reached until one expires', async () => {
    const c = await h.account('enterprise');
    await seedExports(c.accountId, 20, 1000);
    const over = await h.call('POST', '/api/v1/exports/', { key: c.key, body: {} });
    expect(over.status).toBe(409);
    expect(over.body.errors).toEqual([{ code: 'export_limit_reached', detail: expect.stringContaining('at most 20 exports stored on the Enterprise plan') }]);
    await exportsOf().deleteOne({ account_id: c.accountId, id: 1000 });
    const parallel = await Promise.all(Array.from({ length: 10 }, () => h.call('POST', '/api/v1/exports/', { key: c.key, body: {} })));
    expect(parallel.filter((r) => r.status === 202)).toHaveLength(1);
    expect(parallel.filter((r) => r.status === 409).map((r) => r.body.errors[0].code)).toContain('export_limit_reached');
    expect(await exportsOf().countDocuments({ account_id: c.accountId })).toBe(20);
  });

  it('stored bytes: an account whose files take the plan\'s 1 GiB queues no export (409 export_limit_reached naming it)', async () => {
    const c = await h.account('enterprise');
    await seedExports(c.accountId, 2, GIB / 2);
    const over = await h.call('POST', '/api/v1/exports/', { key: c.key, body: {} });
    expect(over.status).toBe(409);
    expect(over.body.errors).toEqual([{ code: 'export_limit_reached', detail: expect.stringContaining('1 GiB of export files stored on the Enterprise plan') }]);
  });

  it('rows: a csv, zip or diff export matching more than the plan\'s 20,000 rows is refused at once; one that grows past its limit while queued ends failed naming it', async () => {
    const c = await h.account('enterprise');
    await seedDomains(c.accountId, 20_001, 'removed');
    for (const body of [{ filters: { status: 'removed' } }, { export_type: 'zip', filters: { status: 'removed' } }]) {
      const over = await h.call('POST', '/api/v1/exports/', { key: c.key, body });
      expect(over.status).toBe(409);
      expect(over.body.errors).toEqual([{ code: 'export_limit_reached', detail: expect.stringContaining('at most 20,000 rows an export on the Enterprise plan') }]);
    }
    // Active domains only: none, so it is queued.
    expect((await h.call('POST', '/api/v1/exports/', { key: c.key, body: {} })).status).toBe(202);

    // The worker holds the job to the limit it was queued with.
    const d = await h.account('enterprise');
    await seedDomains(d.accountId, 3, 'active');
    const limits = { maxPending: 3, maxStored: 20, maxStorageBytes: GIB, maxRows: 3, planLabel: 'Enterprise' };
    const q = await queueExport({ db: h.db, limits }, { _id: d.accountId, portfolio_plan: 'enterprise' }, {});
    await seedDomains(d.accountId, 2, 'active', 4, 'late');
    const worker = new ExportWorker(h.db, createLogger('limits-test', 'silent'), { concurrency: 1, pollMs: 50, leaseMs: 30_000, maxAttempts: 3, batchRows: 1, chunkBytes: 1024, ttlS: 3600, pdfMaxRows: 3, sweepIntervalMs: 3_600_000 });
    await exportsOf().updateOne({ _id: q.task_id }, { $set: { status: 'processing', worker: worker.id, attempts: 1, lease_until: new Date(Date.now() + 60_000) } });
    await worker.run((await exportsOf().findOne({ _id: q.task_id }))!);
    const failed = (await exportsOf().findOne({ _id: q.task_id }))!;
    expect(failed.status).toBe('failed');
    expect(failed.error).toContain('more than 3 rows');
    expect(await h.db.collection('portfolio_export_files.files').countDocuments({ 'metadata.task_id': q.task_id })).toBe(0);
  });
});

describe('stored bytes at completion', () => {
  it('two exports finishing at once cannot both take the account past its stored bytes: one completes, the other ends failed naming the limit (its file deleted)', async () => {
    const c = await h.account('enterprise');
    await seedDomains(c.accountId, 3, 'active');
    const settings = { concurrency: 1, pollMs: 50, leaseMs: 30_000, maxAttempts: 3, batchRows: 10, chunkBytes: 1024, ttlS: 3600, pdfMaxRows: 3, sweepIntervalMs: 3_600_000 };
    const workers = [0, 1].map(() => new ExportWorker(h.db, createLogger('limits-test', 'silent'), settings));
    const run = async (w: ExportWorker, taskId: string) => {
      await exportsOf().updateOne({ _id: taskId }, { $set: { status: 'processing', worker: w.id, attempts: 1, lease_until: new Date(Date.now() + 60_000) } });
      await w.run((await exportsOf().findOne({ _id: taskId }))!);
    };
    // One file's size, measured, then given back.
    const probe = await queueExport({ db: h.db, limits: { maxPending: 3, maxStored: 20, maxStorageBytes: GIB, maxRows: 100, planLabel: 'Enterprise' } }, { _id: c.accountId }, {});
    await run(workers[0]!, probe.task_id);
    const size = (await exportsOf().findOne({ _id: probe.task_id }))!.file_size;
    expect(size).toBeGreaterThan(0);
    await exportsOf().deleteOne({ _id: probe.task_id });

    const limits = { maxPending: 3, maxStored: 20, maxStorageBytes: Math.floor(size * 1.5), maxRows: 100, planLabel: 'Enterprise' };
    const q = [await queueExport({ db: h.db, limits }, { _id: c.accountId }, {}), await queueExport({ db: h.db, limits }, { _id: c.accountId }, {})];
    await Promise.all(q.map((x, i) => run(workers[i]!, x.task_id)));
    const done = await exportsOf().find({ account_id: c.accountId }).sort({ id: 1 }).toArray();
    expect(done.map((e) => e.status).sort()).toEqual(['completed', 'failed']);
    const failed = done.find((e) => e.status === 'failed')!;
    expect(failed.error).toContain('would pass the plan\'s');
    expect(failed.pending_slot).toBeUndefined();
    expect(await h.db.collection('portfolio_export_files.files').countDocuments({ 'metadata.task_id': { $in: q.map((x) => x.task_id) } })).toBe(1);
  });
});

describe('domains', () => {
  it('parallel adds never take an account past the plan\'s 10,000 domains; over it, 409 domain_limit_reached naming the limit; names already listed still answer', async () => {
    const c = await h.account('enterprise');
    await seedDomains(c.accountId, 9_990, 'active');
    await seedDomains(c.accountId, 5, 'inactive', 9_991);
    await seedDomains(c.accountId, 1, 'removed', 9_996);
    const replies = await Promise.all(Array.from({ length: 20 }, (_, i) => h.call('POST', '/api/v1/domains/', { key: c.key, body: { domains: [`new${i}.example.test`] } })));
    expect(replies.filter((r) => r.status === 200)).toHaveLength(5);
    const refused = replies.filter((r) => r.status === 409);
    expect(refused).toHaveLength(15);
    expect(refused[0]!.body).toEqual({ status: 'error', data: null, meta: {}, errors: [{ code: 'domain_limit_reached', detail: expect.stringContaining('at most 10,000 domains on the Enterprise plan') }] });
    expect(await domainsOf().countDocuments({ account_id: c.accountId, status: { $ne: 'removed' } })).toBe(10_000);

    // At the limit: names already listed are answered; a removed one coming back is refused (PATCH too).
    const again = await h.call('POST', '/api/v1/domains/', { key: c.key, body: { domains: ['seed1.example.test', 'seed9991.example.test'] } });
    expect(again.status).toBe(200);
    expect(again.body.meta).toEqual({ added: 1, already_monitored: 1, invalid: 0 });
    expect((await h.call('POST', '/api/v1/domains/', { key: c.key, body: { domains: ['seed9996.example.test'] } })).status).toBe(409);
    const patch = await h.call('PATCH', '/api/v1/domains/9996/', { key: c.key, body: { status: 'active' } });
    expect(patch.status).toBe(409);
    expect(patch.body.errors[0].code).toBe('domain_limit_reached');
    const root = await h.call('GET', '/api/v1/', { key: c.key });
    expect(root.body.data.usage.domains).toEqual({ used: 10_000, limit: 10_000 });
  });
});

describe('pagination', () => {
  it('offset is capped at 100,000 on every paginated route (deeper: filters or an export)', async () => {
    const c = await h.account('enterprise');
    for (const path of ['/api/v1/domains/', '/api/v1/exports/']) {
      expect((await h.call('GET', `${path}?offset=100000`, { key: c.key })).status).toBe(200);
      const deep = await h.call('GET', `${path}?offset=100001`, { key: c.key });
      expect(deep.status).toBe(400);
      expect(deep.body.errors).toEqual([{ code: 'validation_error', detail: expect.stringContaining('offset: at most 100,000') }]);
    }
  });
});
