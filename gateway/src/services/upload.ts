import { createHash, type Hash } from 'node:crypto';
import { Transform, type TransformCallback, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Request } from 'express';
import busboy from 'busboy';
import { parse as csvParse } from 'csv-parse';
import { ApiError } from '@dv/runtime';
import { Intake } from './intake.ts';
import { Utf8OffsetTracker } from './utf8-offset.ts';

// POST /v1/jobs multipart: one CSV or TXT file (part name `file`) plus text fields, parsed as a
// stream (busboy → UTF-8 check → csv-parse), never held whole in memory. The delimiter (`,`, `;`
// or tab) is sniffed from the header line; a BOM, quoted fields and CRLF are handled by
// csv-parse. Text fields should come before the file part; `email_column` after the file is
// accepted only if it names the column that was used.

export interface UploadLimits {
  maxBytes: number;
  maxItems: number;
  invalidListedMax: number;
  metaMaxKeys: number;
  metaMaxValueChars: number;
}

export interface ParsedUpload {
  fields: Record<string, string>;
  intake: Intake;
  fileName: string;
  format: 'csv' | 'txt';
  emailColumn: string | null;
  metaColumns: string[];
  /** sha256 over the fields and the file's bytes: the request's idempotency fingerprint. */
  digest: string;
}

const FIELD_NAMES = new Set(['email_column', 'label', 'max_age_days', 'force_fresh', 'notify_email', 'webhook_url', 'max_wall_seconds']);

function invalidUpload(msg: string): ApiError {
  return new ApiError('invalid_upload', msg);
}

/** Validates UTF-8 and hashes the raw bytes as they pass; an error names the first bad byte's offset. */
class Utf8Check extends Transform {
  private readonly utf8 = new Utf8OffsetTracker();
  private readonly hash: Hash | undefined;
  constructor(hash?: Hash) {
    super();
    this.hash = hash;
  }
  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    this.hash?.update(chunk);
    const bad = this.utf8.push(chunk);
    if (bad >= 0) {
      cb(invalidUpload(`The file is not UTF-8 text: byte ${bad} (counting from 0) is not valid UTF-8; save it as UTF-8 CSV and upload again.`));
      return;
    }
    cb(null, chunk);
  }
  override _flush(cb: TransformCallback): void {
    const cut = this.utf8.end();
    if (cut >= 0) cb(invalidUpload(`The file ends in the middle of a UTF-8 character (starting at byte ${cut}, counting from 0); save it as UTF-8 and upload again.`));
    else cb();
  }
}

/** Counts `,` `;` and tab outside quotes in the header line; the most frequent wins (comma on a tie or none). */
export function sniffDelimiter(firstLine: string): ',' | ';' | '\t' {
  const counts = { ',': 0, ';': 0, '\t': 0 };
  let quoted = false;
  for (const ch of firstLine) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && ch in counts) counts[ch as keyof typeof counts]++;
  }
  if (counts[';'] > counts[','] && counts[';'] >= counts['\t']) return ';';
  if (counts['\t'] > counts[','] && counts['\t'] > counts[';']) return '\t';
  return ',';
}

/** The column that holds the addresses when none is named: "email", else one like "e-mail", else the only one; -1 when none fits. */
export function guessEmailColumn(header: readonly string[]): number {
  let idx = header.findIndex((h) => h.toLowerCase() === 'email');
  if (idx < 0) idx = header.findIndex((h) => /e-?mail/i.test(h));
  if (idx < 0 && header.length === 1) idx = 0;
  return idx;
}

function findEmailColumn(header: string[], wanted: string | undefined): number {
  const idx = wanted !== undefined ? header.indexOf(wanted) : guessEmailColumn(header);
  if (idx < 0) {
    throw invalidUpload(wanted !== undefined ? `The CSV has no column "${wanted}" (email_column); its columns are: ${header.join(', ')}.` : `Name the column holding the addresses in email_column; the CSV's columns are: ${header.join(', ')}.`);
  }
  return idx;
}

async function* peekable(source: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  for await (const c of source) yield c;
}

export async function parseUpload(req: Request, limits: UploadLimits): Promise<ParsedUpload> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limits.maxBytes + 1024 * 1024) throw new ApiError('file_too_large', `The upload is larger than ${limits.maxBytes / 1024 / 1024} MB; split the list.`);
  let bb: busboy.Busboy;
  try {
    bb = busboy({ headers: req.headers, limits: { files: 1, fields: 20, fieldSize: 4096, fileSize: limits.maxBytes, parts: 30 } });
  } catch (err) {
    throw invalidUpload(`Not a readable multipart/form-data request: ${(err as Error).message}.`);
  }
  const fields: Record<string, string> = {};
  const hash = createHash('sha256');
  const intake = new Intake(limits.maxItems, limits.invalidListedMax);
  let fileSeen = false;
  let fileDone: Promise<void> | undefined;
  let result: Omit<ParsedUpload, 'fields' | 'intake' | 'digest'> | undefined;
  let failure: unknown;
  const fail = (err: unknown) => {
    failure ??= err;
  };

  bb.on('field', (name, value, info) => {
    if (info.valueTruncated) return fail(invalidUpload(`The field ${name} is longer than 4096 bytes.`));
    if (!FIELD_NAMES.has(name)) return fail(invalidUpload(`Unknown form field "${name}"; accepted: file, ${[...FIELD_NAMES].join(', ')}.`));
    fields[name] = value;
    hash.update(`field:${name}=${value}\n`);
  });
  bb.on('file', (name, stream, info) => {
    if (name !== 'file' || fileSeen) {
      stream.resume();
      return fail(invalidUpload(fileSeen ? 'Send exactly one file.' : `The file part must be named "file" (got "${name}").`));
    }
    fileSeen = true;
    hash.update(`file:\n`);
    const format = listFormat(info.filename, info.mimeType);
    fileDone = readList(stream, format, intake, limits, { column: (header) => findEmailColumn(header, fields.email_column), hash })
      .then((r) => {
        result = { fileName: info.filename ?? 'upload', format, emailColumn: r.emailColumn, metaColumns: r.metaColumns };
        if ((stream as Readable & { truncated?: boolean }).truncated) fail(new ApiError('file_too_large', `The file is larger than ${limits.maxBytes / 1024 / 1024} MB; split the list.`));
      })
      .catch((err: unknown) => {
        fail(err);
        stream.unpipe();
        stream.resume();
      });
  });
  bb.on('filesLimit', () => fail(invalidUpload('Send exactly one file.')));
  bb.on('fieldsLimit', () => fail(invalidUpload('Too many form fields.')));
  bb.on('partsLimit', () => fail(invalidUpload('Too many form parts.')));

  try {
    await pipeline(req, bb);
  } catch (err) {
    // A source that failed with a reason of its own (a list URL's download breaking off) keeps it.
    fail(err instanceof ApiError ? err : invalidUpload(`The multipart body could not be read: ${(err as Error).message}.`));
  }
  await fileDone;
  if (failure) throw failure;
  if (!fileSeen || !result) throw invalidUpload('No file part: send the list as a multipart part named "file" (CSV or TXT).');
  if (fields.email_column !== undefined && result.emailColumn !== null && fields.email_column !== result.emailColumn) {
    throw invalidUpload('Send the email_column field before the file part.');
  }
  return { fields, intake, digest: hash.digest('hex'), ...result };
}

/** How a list is read apart from its limits: which CSV column holds the addresses, and what else to keep. */
export interface ListReadOptions {
  /**
   * The index of the address column, given the CSV's header (read when the header arrives, so an
   * email_column sent after the file part is seen); throws to refuse the file. -1 reads no address
   * and keeps only the sample (someone is still to pick the column).
   */
  column(header: string[]): number;
  /** Hashes the raw bytes as they pass (the upload's idempotency fingerprint). */
  hash?: Hash;
  /** Keep this many first data rows (CSV: the cells; TXT: the line) for a preview. */
  sampleRows?: number;
}

export interface ListRead {
  emailColumn: string | null;
  metaColumns: string[];
  /** The CSV's header row (trimmed), null for TXT. */
  header: string[] | null;
  sample: string[][];
}

/** TXT by the name's extension, or text/plain without a .csv name; CSV otherwise. */
export function listFormat(fileName: string | undefined, mimeType: string | undefined): 'csv' | 'txt' {
  const lower = (fileName ?? '').toLowerCase();
  return lower.endsWith('.txt') || (mimeType === 'text/plain' && !lower.endsWith('.csv')) ? 'txt' : 'csv';
}

/**
 * Reads a list file (a stream of its bytes) into `intake`: UTF-8 checked, CSV delimiter sniffed,
 * header and address column found, rows deduplicated; stops at the plan's job size.
 */
export async function readList(stream: Readable, format: 'csv' | 'txt', intake: Intake, limits: UploadLimits, opts: ListReadOptions): Promise<ListRead> {
  const checked = stream.pipe(new Utf8Check(opts.hash));
  stream.on('error', (e) => checked.destroy(e));
  if (format === 'txt') {
    const sample = await readTxt(checked, intake, limits.maxItems, opts.sampleRows ?? 0);
    return { emailColumn: null, metaColumns: [], header: null, sample };
  }
  return readCsv(checked, intake, limits, opts);
}

function tooManyAddresses(max: number): ApiError {
  return new ApiError('job_too_large', `The list holds more than ${max} unique addresses; this account's plan allows ${max} per job. Split the list.`, { limit: max });
}

/** TXT: one address per line, any line ending; blank lines count as rows but add nothing. */
async function readTxt(checked: Utf8Check, intake: Intake, maxItems: number, sampleRows: number): Promise<string[][]> {
  let row = 0;
  let rest = '';
  const sample: string[][] = [];
  const decoder = new TextDecoder('utf-8');
  const line = (l: string) => {
    row++;
    const v = (row === 1 ? l.replace(/^\uFEFF/, '') : l).trim();
    if (v && sample.length < sampleRows) sample.push([v.slice(0, 320)]);
    if (v) intake.add(v, null, null, { row });
    if (intake.overLimit) throw tooManyAddresses(maxItems);
  };
  for await (const chunk of checked as AsyncIterable<Buffer>) {
    const parts = (rest + decoder.decode(chunk, { stream: true })).split(/\r?\n|\r/);
    rest = parts.pop() ?? '';
    for (const p of parts) line(p);
  }
  if (rest) line(rest);
  return sample;
}

/** CSV: sniff the delimiter from the first line, then hand everything to csv-parse. */
async function readCsv(checked: Utf8Check, intake: Intake, limits: UploadLimits, opts: ListReadOptions): Promise<ListRead> {
  const source = peekable(checked as AsyncIterable<Buffer>);
  const first = await source.next();
  if (first.done) throw invalidUpload('The file is empty.');
  const head = first.value.toString('utf8', 0, Math.min(first.value.length, 65_536)).replace(/^\uFEFF/, '');
  const delimiter = sniffDelimiter(head.split(/\r?\n|\r/, 1)[0] ?? '');
  const rows = new CsvRows(opts, intake, limits);
  const parser = csvParse({ delimiter, bom: true, relax_column_count: true, skip_empty_lines: true, relax_quotes: true, max_record_size: 1_000_000, on_record: (record: string[]) => rows.onRecord(record) });
  parser.resume();
  try {
    await pipeline(
      (async function* () {
        yield first.value;
        for await (const c of source) {
          if (rows.stop) return;
          yield c;
        }
      })(),
      parser,
    );
  } catch (err) {
    rows.stop ??= err;
  }
  return rows.finish(checked);
}

/** Reading stopped because the sample is complete and no address column was chosen: not an error. */
const SAMPLED = Symbol('sampled');

/**
 * A CSV's records, taken inside csv-parse (on_record returns null), so no record ever travels
 * through a stream buffer or a promise: less garbage, and the heap stays near the job's own size.
 */
class CsvRows {
  private readonly opts: ListReadOptions;
  private readonly intake: Intake;
  private readonly limits: UploadLimits;
  private header: string[] | undefined;
  private emailIdx = -1;
  private metaIdx: number[] = [];
  /** Data rows seen (the header is not one). */
  private row = 0;
  private readonly sample: string[][] = [];
  /** Why reading stopped (a row past the limit, a bad header, a parse error); later records are skipped. */
  stop: unknown;

  constructor(opts: ListReadOptions, intake: Intake, limits: UploadLimits) {
    this.opts = opts;
    this.intake = intake;
    this.limits = limits;
  }

  onRecord(record: string[]): null {
    if (this.stop) return null;
    try {
      if (!this.header) this.takeHeader(record);
      else this.addRow(record, this.header);
    } catch (err) {
      this.stop = err;
    }
    return null;
  }

  private takeHeader(record: string[]): void {
    const header = record.map((h) => h.trim());
    this.header = header;
    this.emailIdx = this.opts.column(header);
    this.metaIdx = header.map((_, i) => i).filter((i) => i !== this.emailIdx && header[i] !== '').slice(0, this.limits.metaMaxKeys);
  }

  private addRow(record: string[], header: string[]): void {
    this.row++;
    const row = this.row;
    if (this.sample.length < (this.opts.sampleRows ?? 0)) this.sample.push(record.map((c) => c.trim().slice(0, 320)));
    // No address column yet: only the sample is wanted.
    if (this.emailIdx < 0) {
      if (this.sample.length >= (this.opts.sampleRows ?? 0)) this.stop = SAMPLED;
      return;
    }
    const email = (record[this.emailIdx] ?? '').trim();
    const { metaIdx, limits } = this;
    const meta = () => {
      if (metaIdx.length === 0) return null;
      const m: Record<string, string> = {};
      for (const i of metaIdx) m[header[i]!] = (record[i] ?? '').trim().slice(0, limits.metaMaxValueChars);
      return m;
    };
    if (!email) this.intake.reject('', 'the email column is empty', 'empty', { row });
    else this.intake.add(email, null, meta, { row });
    // Past the plan's per-job limit the answer is 413 whatever follows: stop parsing.
    if (this.intake.overLimit) throw tooManyAddresses(limits.maxItems);
  }

  /** The columns used, or why the file was refused; a refusal stops reading (the caller drains the rest of the request). */
  finish(checked: Utf8Check): ListRead {
    const { stop, header } = this;
    if (stop === SAMPLED) checked.destroy();
    else if (stop) {
      checked.destroy();
      if (stop instanceof ApiError) throw stop;
      throw invalidUpload(`The CSV could not be parsed near data row ${this.row + 1}: ${(stop as Error).message}.`);
    }
    if (!header) throw invalidUpload('The file is empty.');
    return { emailColumn: header[this.emailIdx] ?? null, metaColumns: this.metaIdx.map((i) => header[i]!), header, sample: this.sample };
  }
}
