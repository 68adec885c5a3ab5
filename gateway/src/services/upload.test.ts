import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COLLECTIONS, type JobItemDoc } from '@dv/contracts';
import { call, startGatewayHarness, type GatewayHarness, type TestAccount } from '../testing/harness.ts';
import { sniffDelimiter } from './upload.ts';

// POST /v1/jobs multipart: CSV/TXT parsing as a stream, with the awkward files people upload.

let h: GatewayHarness;
let a: TestAccount;
beforeAll(async () => {
  h = await startGatewayHarness({ label: 'upload' });
  a = await h.account({ credits: 1000 });
});
afterAll(async () => h?.close());

async function upload(file: Buffer | string, name: string, fields: Record<string, string> = {}, key = a.sandbox, headers: Record<string, string> = {}) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  form.append('file', new Blob([typeof file === 'string' ? file : new Uint8Array(file)]), name);
  const res = await fetch(`${h.url}/v1/jobs`, { method: 'POST', body: form, headers: { authorization: `Bearer ${key}`, ...headers } });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read bodies loosely
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

const items = async (jobId: string) => h.db.collection<JobItemDoc>(COLLECTIONS.jobItems.name).find({ job_id: jobId }).sort({ seq: 1 }).toArray();

describe('multipart uploads', () => {
  it('sniffs the delimiter', () => {
    expect(sniffDelimiter('email,name')).toBe(',');
    expect(sniffDelimiter('email;name;"a,b"')).toBe(';');
    expect(sniffDelimiter('email\tname')).toBe('\t');
    expect(sniffDelimiter('email')).toBe(',');
  });

  it('CSV with BOM, CRLF, quoted fields and ; delimiter; other columns become meta', async () => {
    const csv = '\uFEFFName;E-mail;Note\r\n"Doe; Jane";jane@example.com;"said ""hi"""\r\nBob;BOB@Example.com;\r\nBob again;bob@example.com;dup\r\nNobody;not-an-address;x\r\n';
    const r = await upload(Buffer.from(csv, 'utf8'), 'list.csv', { email_column: 'E-mail', label: 'upload' });
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({ accepted: 2, duplicates_removed: 1, label: 'upload', credits_charged: 0 });
    expect(r.body.invalid).toEqual([expect.objectContaining({ row: 4, input: 'not-an-address' })]);
    const stored = await items(r.body.job_id);
    expect(stored.map((i) => i.email)).toEqual(['jane@example.com', 'BOB@example.com']);
    expect(stored[0]!.meta).toEqual({ Name: 'Doe; Jane', Note: 'said "hi"' });
  });

  it('tab-separated, default email column, live charge', async () => {
    const before = (await call(h.url, '/v1/account', { key: a.live })).body.credits.balance;
    const r = await upload('email\tcompany\na@example.com\tAcme\nb@example.com\tBeta\n', 'list.tsv', {}, a.live);
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({ accepted: 2, credits_charged: 2 });
    expect((await items(r.body.job_id))[1]!.meta).toEqual({ company: 'Beta' });
    expect((await call(h.url, '/v1/account', { key: a.live })).body.credits.balance).toBe(before - 2);
  });

  it('TXT: one address per line', async () => {
    const r = await upload('a@example.com\r\n\r\nb@example.com\nc@example.com', 'list.txt', {}, (await h.account()).sandbox);
    expect(r.status).toBe(202);
    expect(r.body.accepted).toBe(3);
  });

  it('422 invalid_upload for non-UTF-8, a missing email_column, no file, a wrong part name', async () => {
    const latin1 = Buffer.concat([Buffer.from('email,name\nj@example.com,Jos'), Buffer.from([0xe9]), Buffer.from('\n')]);
    const r = await upload(latin1, 'list.csv');
    expect(r.status).toBe(422);
    expect(r.body.code).toBe('invalid_upload');
    // The Latin-1 é is byte 28: 'email,name\n' is 11 bytes and 'j@example.com,Jos' 17 before it.
    expect(r.body.detail).toMatch(/byte 28 \(counting from 0\) is not valid UTF-8/);
    const col = await upload('mail,name\nx@example.com,X\n', 'list.csv', { email_column: 'email' });
    expect(col.status).toBe(422);
    expect(col.body.detail).toMatch(/no column "email"/);
    const form = new FormData();
    form.append('label', 'x');
    const none = await fetch(`${h.url}/v1/jobs`, { method: 'POST', body: form, headers: { authorization: `Bearer ${a.sandbox}` } });
    expect(none.status).toBe(422);
    const wrong = new FormData();
    wrong.append('upload', new Blob(['email\nx@example.com\n']), 'l.csv');
    const w = await fetch(`${h.url}/v1/jobs`, { method: 'POST', body: wrong, headers: { authorization: `Bearer ${a.sandbox}` } });
    expect(((await w.json()) as { detail: string }).detail).toMatch(/named "file"/);
  });

  it('an Idempotency-Key replay of the same upload is recognised whatever the boundary', async () => {
    const key = 'upload-key-1';
    const b = await h.account();
    const r1 = await upload('email\nk1@example.com\n', 'a.csv', {}, b.sandbox, { 'idempotency-key': key });
    expect(r1.status).toBe(202);
    const r2 = await upload('email\nk1@example.com\n', 'a.csv', {}, b.sandbox, { 'idempotency-key': key });
    expect(r2.body.job_id).toBe(r1.body.job_id);
    const r3 = await upload('email\nk2@example.com\n', 'a.csv', {}, b.sandbox, { 'idempotency-key': key });
    expect(r3.body.code).toBe('idempotency_key_reused');
  });

  it('413 job_too_large past the plan, 413 file_too_large past 50 MB', async () => {
    const small = await h.account({ limits: { emailsPerJob: 2 } });
    const r = await upload('email\na@x.com\nb@x.com\nc@x.com\n', 'l.csv', {}, small.sandbox);
    expect(r.status).toBe(413);
    expect(r.body.code).toBe('job_too_large');
    const big = Buffer.alloc(51 * 1024 * 1024, 'a');
    big.write('email\n');
    const f = await upload(big, 'big.csv');
    expect(f.status).toBe(413);
    expect(f.body.code).toBe('file_too_large');
  });
});
