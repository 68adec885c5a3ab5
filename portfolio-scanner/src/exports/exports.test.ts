import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { GridFSBucket, type ObjectId } from 'mongodb';
import { COLLECTIONS, EXPORT_FILES_BUCKET, type AccountDomainDoc, type ExportDoc } from '@dv/contracts';
import { createLogger } from '@dv/runtime';
import { revokePortfolioKey, setPortfolioPlan } from '@dv/accounts';
import { until } from '@dv/test-kit';
import { EXPORT_SECRET, errorEnvelope, INTERVAL_S, startHarness, type Harness } from '../api/testing/harness.ts';
import { outcome } from '../store/fixtures.ts';
import { slotOf, storeScan } from '../store/index.ts';
import { signExportLink } from './signing.ts';
import { unzip } from './testing/unzip.ts';
import { exportRequestSchema, normalizeParameters } from './params.ts';
import type { FileSink } from './sink.ts';
import { ExportWorker, type ExportSettings } from './worker.ts';
import { writeCsv } from './write-csv.ts';

// The export routes and workers on the run's MongoDB and Redis: every export type end to end
// (queued → processing → completed, the file fetched through its signed link), filters and
// columns, diff correctness, isolation, forged and expired links, failures, crashed workers,
// expiry.

const HOUR = 3_600_000;
// Each test waits for a worker to finish exports (polling, up to a minute each on a loaded machine).
vi.setConfig({ testTimeout: 180_000 });
const SETTINGS: ExportSettings = { concurrency: 2, pollMs: 50, leaseMs: 30_000, maxAttempts: 3, batchRows: 2, chunkBytes: 1024, ttlS: 3600, pdfMaxRows: 3, sweepIntervalMs: 3_600_000 };
let h: Harness;
let worker: ExportWorker;
let a: { accountId: string; key: string };
let b: { accountId: string; key: string };
let t0: number;
const exportsOf = () => h.db.collection<ExportDoc>(COLLECTIONS.portfolioExports.name);

async function scan(domain: string, at: Date, fields: Parameters<typeof outcome>[1]) {
  await storeScan(h.db, domain, slotOf(domain, at, INTERVAL_S), outcome(at, fields), { intervalS: INTERVAL_S, now: at });
}

/** Queues an export as `key`, waits for it to finish, returns its job view. */
async function exportAs(key: string, body: unknown) {
  const q = await h.call('POST', '/api/v1/exports/', { key, body });
  expect(q.status, JSON.stringify(q.body)).toBe(202);
  const id = q.body.meta.export_id as number;
  return until(
    async () => {
      const r = await h.call('GET', `/api/v1/exports/${id}/`, { key });
      return ['completed', 'failed'].includes(r.body.data.status) ? r.body.data : null;
    },
    60_000,
    `export ${id} finished`,
    50,
  );
}

async function download(fileUrl: string) {
  const res = await fetch(fileUrl);
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

const csvRows = (text: string) => text.split('\r\n').filter((l) => l !== '');

beforeAll(async () => {
  h = await startHarness('pexports');
  a = await h.account('enterprise_max');
  b = await h.account('enterprise');
  await h.call('POST', '/api/v1/domains/', { key: a.key, body: { domains: ['d1.example.test', 'd2.example.test', 'd3.example.test', 'd4.example.test', 'd5.example.test'] } });
  await h.call('POST', '/api/v1/domains/', { key: b.key, body: { domains: ['other.example.test'] } });
  t0 = Date.now();
  // The scans below are dated before the adds: the account's own history of its names starts earlier.
  await h.db.collection<AccountDomainDoc>(COLLECTIONS.portfolioDomains.name).updateMany({ account_id: a.accountId }, { $set: { first_seen: new Date(t0 - 30 * 24 * HOUR) } });
  // d1: mx changes twice inside the window, spf once before it. d2: DMARC p none → reject → none
  // (back where it was: no diff row). d3: gateway and DMARC missing. d4: scanned, no changes. d5: never scanned.
  await scan('d1.example.test', new Date(t0 - 10 * 24 * HOUR), { mx: '10 a.example.test', spf: 'v=spf1 -all' });
  await scan('d1.example.test', new Date(t0 - 8 * 24 * HOUR), { mx: '10 a.example.test', spf: 'v=spf1 ~all' });
  await scan('d1.example.test', new Date(t0 - 3 * 24 * HOUR), { mx: '10 b.example.test', spf: 'v=spf1 ~all' });
  await scan('d1.example.test', new Date(t0 - 2 * 24 * HOUR), { mx: '10 c.example.test', spf: 'v=spf1 ~all' });
  await scan('d2.example.test', new Date(t0 - 6 * 24 * HOUR), { dmarc: 'v=DMARC1; p=none', dmarc_policy_p: 'none' });
  await scan('d2.example.test', new Date(t0 - 4 * 24 * HOUR), { dmarc: 'v=DMARC1; p=reject', dmarc_policy_p: 'reject' });
  await scan('d2.example.test', new Date(t0 - 1 * 24 * HOUR), { dmarc: 'v=DMARC1; p=none', dmarc_policy_p: 'none' });
  await scan('d3.example.test', new Date(t0 - HOUR), { email_gateway: null, dmarc: null, dmarc_policy_p: null });
  await scan('d4.example.test', new Date(t0 - HOUR), {});
  await h.call('PATCH', '/api/v1/domains/4/', { key: a.key, body: { folder_id: 7, tags: ['vip', 'eu'], notes: '=cmd|calc' } });
  worker = new ExportWorker(h.db, createLogger('export-test', 'silent'), SETTINGS);
  worker.start();
});
afterAll(async () => {
  await worker?.stop();
  await h?.close();
});

describe('POST /api/v1/exports/ and the csv export', () => {
  it('answers {task_id, status: queued} at once (202), then the worker completes it: exact rows, row_count, file_size, progress 100', async () => {
    const q = await h.call('POST', '/api/v1/exports/', { key: a.key, body: {} });
    expect(q.status).toBe(202);
    expect(q.body).toEqual({ status: 'ok', data: { task_id: expect.stringMatching(/^exp_[0-9a-z]{26}$/), status: 'queued' }, meta: { export_id: expect.any(Number), poll: `${h.url}/api/v1/exports/` }, errors: [] });
    expect(q.headers.get('x-ratelimit-limit')).toBe('500');
    const job = await exportAs(a.key, {});
    expect(job).toMatchObject({ export_type: 'csv', status: 'completed', row_count: 5, progress: 100, error: null, parameters: { folder_id: null, filters: {} } });
    const file = await download(job.file_url);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(file.headers.get('content-disposition')).toBe(`attachment; filename="portfolio-export-${job.id}.csv"`);
    expect(file.bytes.length).toBe(job.file_size);
    expect(Number(file.headers.get('content-length'))).toBe(job.file_size);
    const lines = csvRows(file.bytes.toString());
    expect(lines[0]).toBe('id,domain,email_gateway,dmarc_policy_p,spf,scanned_at,added_at,folder_id,is_favorite,tags');
    expect(lines.slice(1).map((l) => l.split(',')[1])).toEqual(['d1.example.test', 'd2.example.test', 'd3.example.test', 'd4.example.test', 'd5.example.test']);
    expect(lines[4]).toMatch(/^4,d4\.example\.test,Google,reject,v=spf1 include:_spf\.google\.com ~all,[^,]+,[^,]+,7,false,vip;eu$/);
    // The list says the same.
    const list = await h.call('GET', '/api/v1/domains/', { key: a.key });
    expect(list.body.meta.total_count).toBe(job.row_count);
  });

  it('honours columns (scan fields from the corpus included) and the filters, as the domain list does', async () => {
    const job = await exportAs(a.key, { columns: ['domain', 'mx', 'notes'], filters: { gateway: 'google', dmarc_policy: 'reject' } });
    const lines = csvRows((await download(job.file_url)).bytes.toString());
    const list = await h.call('GET', '/api/v1/domains/?email_gateway=GOOGLE&dmarc_status=reject', { key: a.key });
    expect(job.row_count).toBe(list.body.meta.total_count);
    expect(lines).toEqual(['domain,mx,notes', 'd1.example.test,10 c.example.test,', "d4.example.test,10 mx1.example.test,'=cmd|calc"]);
    const missing = await exportAs(a.key, { columns: ['domain'], filters: { dmarc_policy: 'missing' }, folder_id: null });
    expect(csvRows((await download(missing.file_url)).bytes.toString())).toEqual(['domain', 'd3.example.test', 'd5.example.test']);
    const folder = await exportAs(a.key, { columns: ['domain', 'folder_id'], folder_id: 7 });
    expect(csvRows((await download(folder.file_url)).bytes.toString())).toEqual(['domain,folder_id', 'd4.example.test,7']);
    const search = await exportAs(a.key, { columns: ['domain'], filters: { search: 'D2' } });
    expect(search.row_count).toBe(1);
  });

  it('status filter: removed domains only when asked for', async () => {
    await h.call('DELETE', '/api/v1/domains/5/', { key: a.key });
    const live = await exportAs(a.key, { columns: ['domain'] });
    expect(live.row_count).toBe(4);
    const removed = await exportAs(a.key, { columns: ['domain', 'status'], filters: { status: 'removed' } });
    expect(csvRows((await download(removed.file_url)).bytes.toString())).toEqual(['domain,status', 'd5.example.test,removed']);
    await h.call('PATCH', '/api/v1/domains/5/', { key: a.key, body: { status: 'active' } });
  });
});

describe('scope global (plans with the global domain view)', () => {
  it('exports the active corpus as the list shows it: own domains with their id, others without', async () => {
    const premium = await h.account('enterprise_max_premium');
    await h.call('POST', '/api/v1/domains/', { key: premium.key, body: { domains: ['d3.example.test', 'p1.example.test'] } });
    const job = await exportAs(premium.key, { scope: 'global', columns: ['id', 'domain', 'email_gateway'] });
    expect(job.parameters.scope).toBe('global');
    const lines = csvRows((await download(job.file_url)).bytes.toString());
    const list = (await h.call('GET', '/api/v1/domains/?limit=5000', { key: premium.key })).body;
    expect(job.row_count).toBe(list.meta.total_count);
    expect(lines.slice(1)).toEqual(list.data.map((d: { id: number | null; domain: string; email_gateway: string | null }) => [d.id ?? '', d.domain, d.email_gateway ?? ''].join(',')));
    expect(lines).toContain('1,d3.example.test,');
    expect(lines).toContain(',d1.example.test,Google');
    const filtered = await exportAs(premium.key, { scope: 'global', columns: ['domain'], filters: { dmarc_policy: 'missing' } });
    const listed = (await h.call('GET', '/api/v1/domains/?limit=5000&dmarc_status=missing', { key: premium.key })).body;
    expect(filtered.row_count).toBe(listed.meta.total_count);
  });

  it('is refused on other plans, for pdf and zip, and with folder_id or status', async () => {
    expect((await h.call('POST', '/api/v1/exports/', { key: a.key, body: { scope: 'global' } })).body).toEqual(errorEnvelope('validation_error'));
    for (const body of [{ scope: 'global', export_type: 'zip' }, { scope: 'global', export_type: 'pdf' }, { scope: 'global', folder_id: 7 }, { scope: 'global', filters: { status: 'active' } }]) {
      expect((await h.call('POST', '/api/v1/exports/', { key: a.key, body })).status, JSON.stringify(body)).toBe(400);
    }
  });
});

describe('diff export', () => {
  it('one row per field whose value differs between from and to; a field that came back is no row; changes outside the window are left out', async () => {
    const from = new Date(t0 - 7 * 24 * HOUR).toISOString();
    const job = await exportAs(a.key, { export_type: 'diff', from });
    expect(job.parameters).toMatchObject({ from, to: expect.any(String) });
    const lines = csvRows((await download(job.file_url)).bytes.toString());
    expect(lines[0]).toBe('domain,field_name,value_at_from,value_at_to,changes,first_detected_at,last_detected_at');
    expect(lines.slice(1)).toEqual([`d1.example.test,mx,10 a.example.test,10 c.example.test,2,${new Date(t0 - 3 * 24 * HOUR).toISOString()},${new Date(t0 - 2 * 24 * HOUR).toISOString()}`]);
    expect(job.row_count).toBe(1);
    // A window ending before d2 changed back shows d2's DMARC change; `to` is exclusive.
    const mid = await exportAs(a.key, { export_type: 'diff', from: new Date(t0 - 5 * 24 * HOUR).toISOString(), to: new Date(t0 - 2 * 24 * HOUR).toISOString(), columns: ['domain', 'field_name', 'value_at_from', 'value_at_to'] });
    expect(csvRows((await download(mid.file_url)).bytes.toString()).slice(1)).toEqual(['d1.example.test,mx,10 a.example.test,10 b.example.test', 'd2.example.test,dmarc,v=DMARC1; p=none,v=DMARC1; p=reject', 'd2.example.test,dmarc_policy_p,none,reject']);
    // The spf change 8 days ago is before this window's from.
    const early = await exportAs(a.key, { export_type: 'diff', from: new Date(t0 - 9 * 24 * HOUR).toISOString(), to: new Date(t0 - 7 * 24 * HOUR).toISOString(), columns: ['domain', 'field_name'] });
    expect(csvRows((await download(early.file_url)).bytes.toString()).slice(1)).toEqual(['d1.example.test,spf']);
  });
});

describe('zip and pdf exports', () => {
  it('zip holds domains.csv, domains.json (same rows, typed), summary.json and manifest.json', async () => {
    const job = await exportAs(a.key, { export_type: 'zip', columns: ['id', 'domain', 'is_favorite', 'tags', 'scanned_at'] });
    const file = await download(job.file_url);
    expect(file.headers.get('content-type')).toBe('application/zip');
    expect(file.bytes.length).toBe(job.file_size);
    const entries = unzip(file.bytes);
    expect([...entries.keys()]).toEqual(['domains.csv', 'domains.json', 'summary.json', 'manifest.json']);
    expect(csvRows(entries.get('domains.csv')!.toString())).toHaveLength(6);
    const rows = JSON.parse(entries.get('domains.json')!.toString());
    expect(rows).toHaveLength(5);
    expect(rows[3]).toEqual({ id: 4, domain: 'd4.example.test', is_favorite: false, tags: ['vip', 'eu'], scanned_at: new Date(t0 - HOUR).toISOString() });
    expect(rows[4].scanned_at).toBeNull();
    const summary = JSON.parse(entries.get('summary.json')!.toString());
    const dashboard = (await h.call('GET', '/api/v1/dashboard/summary/', { key: a.key })).body.data;
    for (const k of ['total_domains', 'email_gateway_distribution', 'dmarc_distribution', 'spf_status', 'scan_freshness', 'needs_attention_count']) expect(summary[k], k).toEqual(dashboard[k]);
    const manifest = JSON.parse(entries.get('manifest.json')!.toString());
    expect(manifest).toMatchObject({ task_id: job.task_id, export_type: 'zip', files: { 'domains.csv': { rows: 5 }, 'domains.json': { rows: 5 } } });
    expect(job.row_count).toBe(5);
  });

  it('pdf is a PDF document with the domain table cut at the configured rows', async () => {
    const job = await exportAs(a.key, { export_type: 'pdf' });
    expect(job).toMatchObject({ status: 'completed', row_count: SETTINGS.pdfMaxRows, parameters: { columns: ['domain', 'email_gateway', 'dmarc_policy_p', 'spf_total_lookups', 'scanned_at'] } });
    const file = await download(job.file_url);
    expect(file.headers.get('content-type')).toBe('application/pdf');
    expect(file.bytes.length).toBe(job.file_size);
    expect(file.bytes.subarray(0, 5).toString()).toBe('%PDF-');
    expect(file.bytes.subarray(-6).toString()).toMatch(/%%EOF\s*$/);
    // Two pages at least: the summary, then the table.
    expect(file.bytes.toString('latin1').match(/\/Type \/Page\b/g)?.length).toBeGreaterThanOrEqual(2);
  });
});

describe('validation, auth and isolation', () => {
  it('refuses bad bodies with the envelope (400), and needs a key with API access', async () => {
    for (const body of [{ export_type: 'xlsx' }, { columns: ['nope'] }, { export_type: 'diff' }, { from: new Date().toISOString() }, { surprise: 1 }, { filters: { dmarc_policy: 'strict' } }, { folder_id: 'x' }]) {
      const r = await h.call('POST', '/api/v1/exports/', { key: a.key, body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body).toEqual(errorEnvelope('validation_error'));
    }
    const raw = await h.call('POST', '/api/v1/exports/', { key: a.key, raw: '{"export_type":' });
    expect(raw.body).toEqual(errorEnvelope('invalid_request'));
    expect((await h.call('POST', '/api/v1/exports/', { body: {} })).body).toEqual(errorEnvelope('authentication_required'));
    expect((await h.call('GET', '/api/v1/exports/')).status).toBe(401);
    const noApi = await h.account('business');
    expect((await h.call('GET', '/api/v1/exports/', { key: noApi.key })).body).toEqual(errorEnvelope('api_access_not_included'));
    expect((await h.call('PUT', '/api/v1/exports/', { key: a.key, body: {} })).body).toEqual(errorEnvelope('method_not_allowed'));
  });

  it('another account sees none of the exports: its list is its own, an id of another account is 404', async () => {
    const mine = await h.call('GET', '/api/v1/exports/?limit=2', { key: a.key });
    expect(mine.body.meta.total_count).toBeGreaterThan(2);
    expect(mine.body.data.map((e: { id: number }) => e.id)).toEqual([mine.body.meta.total_count, mine.body.meta.total_count - 1]);
    expect(mine.body.meta.next).toContain('offset=2');
    const theirs = await h.call('GET', '/api/v1/exports/', { key: b.key });
    expect(theirs.body.data).toEqual([]);
    expect(theirs.body.meta.total_count).toBe(0);
    expect((await h.call('GET', '/api/v1/exports/1/', { key: b.key })).body).toEqual(errorEnvelope('not_found'));
    expect((await h.call('GET', '/api/v1/exports/999999/', { key: a.key })).status).toBe(404);
    const other = await exportAs(b.key, {});
    expect(other.id).toBe(1);
    expect(csvRows((await download(other.file_url)).bytes.toString()).slice(1).map((l) => l.split(',')[1])).toEqual(['other.example.test']);
  });

  it('file links: forged, altered, another task\'s, another key\'s and expired signatures are 403; a deleted export is 404', async () => {
    const job = (await h.call('GET', '/api/v1/exports/1/', { key: a.key })).body.data;
    const url = new URL(job.file_url);
    const taskB = (await exportsOf().findOne({ account_id: b.accountId }))!._id;
    const nowS = Math.floor(Date.now() / 1000);
    const variants = {
      noSignature: `${h.url}${url.pathname}`,
      forged: `${h.url}${url.pathname}?expires=${url.searchParams.get('expires')}&signature=${'A'.repeat(43)}`,
      longerExpiry: `${h.url}${url.pathname}?expires=${Number(url.searchParams.get('expires')) + 3600}&signature=${url.searchParams.get('signature')}`,
      otherTask: `${h.url}/api/v1/exports/${taskB}/file/${url.search}`,
      otherKey: `${h.url}${signExportLink(job.task_id, 1, nowS + 600, 'some-other-secret-some-other-secret-000')}`,
      expired: `${h.url}${signExportLink(job.task_id, 1, nowS - 1, EXPORT_SECRET)}`,
    };
    for (const [what, link] of Object.entries(variants)) {
      const r = await h.call('GET', link);
      expect(r.status, what).toBe(403);
      expect(r.body, what).toEqual(errorEnvelope('invalid_signature'));
    }
    expect((await h.call('GET', `${h.url}${signExportLink('exp_00000000000000000000000000', 1, nowS + 600, EXPORT_SECRET)}`)).body).toEqual(errorEnvelope('not_found'));
    // A link minted by the key holder works without any API key: that is what a signed link is for.
    expect((await download(job.file_url)).status).toBe(200);
  });

  it('a file link stops working when its key is revoked, its plan loses API access or its account is deactivated', async () => {
    const c = await h.account('enterprise');
    const job = await exportAs(c.key, {});
    const accounts = h.db.collection<{ _id: string }>(COLLECTIONS.accounts.name);
    const refused = async (code: string) => {
      const r = await h.call('GET', job.file_url);
      expect(r.status).toBe(code === 'invalid_api_key' ? 401 : 403);
      expect(r.body).toEqual(errorEnvelope(code));
    };
    expect((await download(job.file_url)).status).toBe(200);
    await setPortfolioPlan(h.db, c.accountId, 'business');
    await refused('api_access_not_included');
    await setPortfolioPlan(h.db, c.accountId, 'enterprise');
    expect((await download(job.file_url)).status).toBe(200);
    await accounts.updateOne({ _id: c.accountId }, { $set: { status: 'inactive' } });
    await refused('account_inactive');
    await accounts.updateOne({ _id: c.accountId }, { $set: { status: 'active' } });
    expect((await download(job.file_url)).status).toBe(200);
    await revokePortfolioKey(h.db, c.accountId, 1);
    await refused('invalid_api_key');
  });
});

describe('failures, crashes, limits and expiry', () => {
  it('csv batches written ahead reach the file in order; a failed write fails the export, handled', async () => {
    // The writer hands several batches to the file store before waiting for the oldest: a store
    // that answers out of order still gets them in order, and one that fails is the export's error.
    const sinkOf = (failAt: number) => {
      const chunks: string[] = [];
      const sink = {
        write: (chunk: string | Buffer) => {
          chunks.push(chunk.toString());
          const n = chunks.length;
          return new Promise<void>((resolve, reject) => setTimeout(() => (n === failAt ? reject(new Error('file store full')) : resolve()), 30 - n * 5));
        },
      } as unknown as FileSink;
      return { sink, chunks };
    };
    const job = { parameters: normalizeParameters(exportRequestSchema.parse({})).parameters } as ExportDoc;
    const ctx = (sink: FileSink) => ({ db: h.db, job, sink, source: { accountId: a.accountId, parameters: job.parameters, batchRows: 2 }, progress: async () => undefined, pdfMaxRows: 3, now: new Date() });
    const ok = sinkOf(0);
    expect(await writeCsv(ctx(ok.sink))).toEqual({ rowCount: 5 });
    expect(ok.chunks).toHaveLength(4); // the header, then batches of 2, 2 and 1
    expect(csvRows(ok.chunks.join('')).slice(1).map((l) => l.split(',')[1])).toEqual(['d1.example.test', 'd2.example.test', 'd3.example.test', 'd4.example.test', 'd5.example.test']);
    const failing = sinkOf(2);
    await expect(writeCsv(ctx(failing.sink))).rejects.toThrow('file store full');
  });

  it('a writer that throws ends the export failed with the reason, and its partial file is removed', async () => {
    // A queued record with a column no writer knows (as a corrupted record would be), inserted as the API would.
    // Without the places the copied record holds (the API would give it its own).
    const { pending_slot: _pending, stored_slot: _stored, ...template } = (await exportsOf().findOne({ account_id: b.accountId }))!;
    const taskId = 'exp_0000000000000000000000bad1';
    await exportsOf().insertOne({ ...template, _id: taskId, id: 9_999, status: 'queued', parameters: { folder_id: null, filters: {}, columns: ['domain', 'no_such_column'] }, attempts: 0, worker: null, lease_until: null, file_id: null, row_count: 0, file_size: 0, completed_at: null, expires_at: null, created_at: new Date() });
    const job = await until(async () => {
      const r = (await h.call('GET', '/api/v1/exports/9999/', { key: b.key })).body.data;
      return ['completed', 'failed'].includes(r.status) ? r : null;
    }, 30_000, 'export finished', 50);
    expect(job).toMatchObject({ status: 'failed', error: expect.stringMatching(/^the export could not be written: /), file_url: null, row_count: 0 });
    expect(await h.db.collection(`${EXPORT_FILES_BUCKET}.files`).countDocuments({ 'metadata.task_id': taskId })).toBe(0);
  });

  it('a job whose worker died is taken over (its partial file deleted) and completed; past the attempts limit it ends failed', async () => {
    const bucket = new GridFSBucket(h.db, { bucketName: EXPORT_FILES_BUCKET });
    const partial = bucket.openUploadStream('partial.csv', { metadata: { task_id: 'crashed' } });
    partial.end('id,domain\r\n1,');
    await new Promise((r) => partial.once('finish', r));
    const q = await h.call('POST', '/api/v1/exports/', { key: b.key, body: {} });
    const taskId = q.body.data.task_id as string;
    // As a worker that claimed it and died: processing, lease lapsed, its partial file left behind.
    await exportsOf().updateOne({ _id: taskId }, { $set: { status: 'processing', worker: 'dead', attempts: 1, lease_until: new Date(Date.now() - 1000), file_id: partial.id } });
    const done = await until(async () => ((await exportsOf().findOne({ _id: taskId, status: 'completed' })) ?? null), 30_000, 'taken over', 50);
    expect(done.attempts).toBe(2);
    expect(done.row_count).toBe(1);
    expect(await h.db.collection(`${EXPORT_FILES_BUCKET}.files`).countDocuments({ _id: partial.id as ObjectId })).toBe(0);

    const q2 = await h.call('POST', '/api/v1/exports/', { key: b.key, body: {} });
    await exportsOf().updateOne({ _id: q2.body.data.task_id }, { $set: { status: 'processing', worker: 'dead', attempts: SETTINGS.maxAttempts, lease_until: new Date(Date.now() - 1000) } });
    await worker.sweep();
    const failed = (await h.call('GET', `/api/v1/exports/${q2.body.meta.export_id}/`, { key: b.key })).body.data;
    expect(failed).toMatchObject({ status: 'failed', error: expect.stringContaining('stopped during each of 3 attempts'), file_url: null });
  });

  it('at most the plan\'s exports of an account queued or in progress (Enterprise: 3): the fourth is 409 too_many_exports', async () => {
    const c = await h.account('enterprise');
    for (let i = 0; i < 3; i++) {
      const q = await h.call('POST', '/api/v1/exports/', { key: c.key, body: {} });
      // Held by a live (other) worker, so none finishes during the test.
      await exportsOf().updateOne({ _id: q.body.data.task_id }, { $set: { status: 'processing', worker: 'busy', attempts: 1, lease_until: new Date(Date.now() + 600_000) } });
    }
    const fourth = await h.call('POST', '/api/v1/exports/', { key: c.key, body: {} });
    expect(fourth.status).toBe(409);
    expect(fourth.body).toEqual(errorEnvelope('too_many_exports'));
    expect((await h.call('GET', '/api/v1/exports/', { key: c.key })).body.data.map((e: { status: string; progress: number }) => [e.status, e.progress])).toEqual(Array(3).fill(['processing', 0]));
  });

  it('expired exports are deleted with their file; their link then answers 404', async () => {
    const job = await exportAs(b.key, {});
    const doc = (await exportsOf().findOne({ _id: job.task_id }))!;
    expect(await h.db.collection(`${EXPORT_FILES_BUCKET}.files`).countDocuments({ _id: doc.file_id as ObjectId })).toBe(1);
    await worker.sweep(new Date(Date.now() + (SETTINGS.ttlS + 1) * 1000));
    expect(await exportsOf().countDocuments({ _id: job.task_id })).toBe(0);
    expect(await h.db.collection(`${EXPORT_FILES_BUCKET}.files`).countDocuments({ _id: doc.file_id as ObjectId })).toBe(0);
    expect(await h.db.collection(`${EXPORT_FILES_BUCKET}.chunks`).countDocuments({ files_id: doc.file_id as ObjectId })).toBe(0);
    expect((await download(job.file_url)).status).toBe(404);
  });
});
