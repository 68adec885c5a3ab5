import { randomBytes } from 'node:crypto';
import { PassThrough, type Readable } from 'node:stream';
import type { Request } from 'express';

// A fetched list handed to the upload parser of POST /v1/jobs (services/upload.ts) as the
// multipart request it reads: the text fields, then the file part streamed through, so a list
// from a URL is parsed exactly like an uploaded file (format, delimiter sniffing, columns, caps).

export function multipartRequest(fields: Record<string, string>, file: { name: string; contentType: string; body: Readable }): Partial<Request> {
  const boundary = `----dvmcp${randomBytes(12).toString('hex')}`;
  const out = new PassThrough();
  const head = Object.entries(fields)
    .map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`)
    .join('');
  const name = file.name.replace(/["\\\r\n]/g, '_');
  out.write(`${head}--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: ${file.contentType.replace(/[\r\n]/g, '')}\r\n\r\n`);
  file.body.on('error', (err) => out.destroy(err));
  file.body.on('end', () => out.end(`\r\n--${boundary}--\r\n`));
  file.body.pipe(out, { end: false });
  const req = out as unknown as Partial<Request> & { headers: Record<string, string> };
  req.headers = { 'content-type': `multipart/form-data; boundary=${boundary}` };
  req.is = ((t: string) => (t === 'multipart/form-data' ? t : false)) as Request['is'];
  return req;
}
