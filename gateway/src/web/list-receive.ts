import type { Request } from 'express';
import busboy from 'busboy';
import { listFormat } from '../services/upload.ts';
import { PageError } from './page.ts';
import type { UploadOwner, UploadStore } from './uploads.ts';

// POST /app/lists/new's body: the upload form's fields and its one file, streamed into the upload
// store in batches (the process holds at most one batch, never the file). The first bytes tell a
// file that is no list (an image, an archive, a spreadsheet workbook) at once; the rest of the
// reading (UTF-8, the CSV's columns, the addresses) is the API's, at the preview.

export interface ReceivedUpload {
  id: string;
  fileName: string;
  format: 'csv' | 'txt';
  size: number;
  fields: Record<string, string>;
}

const BATCH_BYTES = 1024 * 1024;
const FIELDS = new Set(['label', 'notify_email', 'webhook_url', 'max_wall_seconds']);

/** Files people pick by mistake, by their first bytes. */
const NOT_A_LIST: readonly { what: string; magic: readonly number[] }[] = [
  { what: 'a PNG image', magic: [0x89, 0x50, 0x4e, 0x47] },
  { what: 'a JPEG image', magic: [0xff, 0xd8, 0xff] },
  { what: 'a GIF image', magic: [0x47, 0x49, 0x46, 0x38] },
  { what: 'a PDF document', magic: [0x25, 0x50, 0x44, 0x46, 0x2d] },
  { what: 'a ZIP archive (an Excel .xlsx workbook is one)', magic: [0x50, 0x4b, 0x03, 0x04] },
  { what: 'a gzip archive', magic: [0x1f, 0x8b] },
  { what: 'an old Excel or Word document', magic: [0xd0, 0xcf, 0x11, 0xe0] },
];

export const WHAT_TO_UPLOAD = 'Upload a CSV file (a header row, then one row per address) or a TXT file (one address per line), saved as UTF-8 text. From a spreadsheet: File, Save as, "CSV UTF-8".';

/** What a file is when it is not text, from its first bytes; null when it may be a list. */
export function notAList(first: Buffer): string | null {
  const known = NOT_A_LIST.find((k) => k.magic.every((b, i) => first[i] === b));
  if (known) return known.what;
  return first.subarray(0, 8192).includes(0) ? 'a binary file' : null;
}

const refused = (status: number, message: string) => new PageError(status, 'This file cannot be used', message);

export const tooLarge = (maxBytes: number) => refused(413, `The file is larger than ${maxBytes / 1024 / 1024} MB, the most one upload may hold. Split the list into smaller files and upload each.`);

class Receiver {
  private readonly store: UploadStore;
  private readonly owner: UploadOwner;
  readonly fields: Record<string, string> = {};
  file: Promise<Omit<ReceivedUpload, 'fields'>> | undefined;
  failure: unknown;
  private id: string | undefined;

  constructor(store: UploadStore, owner: UploadOwner) {
    this.store = store;
    this.owner = owner;
  }

  fail(err: unknown): void {
    this.failure ??= err;
  }

  field(name: string, value: string): void {
    if (FIELDS.has(name)) this.fields[name] = value.slice(0, 4096);
  }

  /** Streams the file into the store; a failure drains the rest of it. */
  async take(stream: NodeJS.ReadableStream & { truncated?: boolean }, fileName: string, mimeType: string, maxBytes: number): Promise<Omit<ReceivedUpload, 'fields'>> {
    const id = await this.store.begin(this.owner);
    this.id = id;
    let size = 0;
    let batch: Buffer[] = [];
    let batched = 0;
    const flush = async () => {
      if (batched === 0) return;
      const chunk = Buffer.concat(batch);
      batch = [];
      batched = 0;
      if (!(await this.store.append(id, this.owner, chunk))) throw refused(409, 'A newer upload of yours replaced this one while it was arriving. Upload one file at a time.');
    };
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      if (this.failure) continue;
      if (size === 0) {
        const what = notAList(chunk);
        if (what) this.fail(refused(415, `This file is ${what}, not a list of addresses. ${WHAT_TO_UPLOAD}`));
      }
      size += chunk.length;
      batch.push(chunk);
      batched += chunk.length;
      if (batched >= BATCH_BYTES) await flush().catch((e: unknown) => this.fail(e));
    }
    if (stream.truncated) this.fail(tooLarge(maxBytes));
    if (!this.failure) await flush();
    if (!this.failure && size === 0) this.fail(refused(422, `The file ${fileName} is empty. ${WHAT_TO_UPLOAD}`));
    return { id, fileName, format: listFormat(fileName, mimeType), size };
  }

  async discard(): Promise<void> {
    if (this.id) await this.store.discard(this.id, this.owner);
  }
}

/** Reads the upload form; throws a PageError in words for a file that cannot be a list. */
export async function receiveUpload(req: Request, store: UploadStore, owner: UploadOwner, maxBytes: number): Promise<ReceivedUpload> {
  let bb: busboy.Busboy;
  try {
    bb = busboy({ headers: req.headers, limits: { files: 1, fields: 10, fieldSize: 4096, fileSize: maxBytes, parts: 12 } });
  } catch {
    throw refused(400, `The form was not sent as an upload. ${WHAT_TO_UPLOAD}`);
  }
  const r = new Receiver(store, owner);
  bb.on('field', (name, value) => r.field(name, value));
  bb.on('file', (name, stream, info) => {
    if (name !== 'file' || r.file || !info.filename) {
      stream.resume();
      return;
    }
    r.file = r.take(stream, info.filename, info.mimeType, maxBytes);
    r.file.catch((e: unknown) => r.fail(e));
  });
  try {
    await new Promise<void>((resolve, reject) => {
      bb.on('close', resolve);
      bb.on('error', reject);
      req.on('error', reject);
      req.pipe(bb);
    });
  } catch (err) {
    r.fail(refused(400, `The upload broke off before it was complete (${(err as Error).message}). Try again.`));
  }
  const file = await r.file?.catch(() => undefined);
  if (r.failure || !file) {
    await r.discard();
    throw r.failure ?? refused(422, `No file was chosen. ${WHAT_TO_UPLOAD}`);
  }
  return { ...file, fields: r.fields };
}
