import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import type { RequestHandler } from 'express';

// Browser modules, styles and images, served by the service itself under content-hashed names
// (`/assets/app.3f9a1c2b7d.js`): a changed file gets a new name, so every name can be cached for a
// year, and a page names exactly the version it was rendered with. Files are read, hashed and
// compressed once at start; nothing is looked up on disk per request, so no path can escape.

export const ASSET_PATH_PREFIX = '/assets/';
const ONE_YEAR_S = 365 * 24 * 3600;

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

/** Types worth compressing on the wire. */
const COMPRESSIBLE = new Set(['.js', '.css', '.svg', '.json']);

interface Asset {
  body: Buffer;
  gzip?: Buffer;
  brotli?: Buffer;
  type: string;
  etag: string;
}

export interface Assets {
  /** The hashed URL of a file by its plain name (`app.js`); throws on a name that was not loaded. */
  url(name: string): string;
  /** Serves `/assets/<hashed name>` from memory; mount at the app's root. */
  handler: RequestHandler;
  /** Plain name to hashed URL, for tests and the bench. */
  readonly names: ReadonlyMap<string, string>;
}

function hashedName(name: string, digest: Buffer): string {
  const ext = extname(name);
  return `${name.slice(0, name.length - ext.length)}.${digest.toString('hex').slice(0, 10)}${ext}`;
}

function load(name: string, body: Buffer, digest: Buffer): Asset {
  const ext = extname(name);
  const type = CONTENT_TYPES[ext];
  if (!type) throw new Error(`asset ${name}: no content type for ${ext}`);
  const compress = COMPRESSIBLE.has(ext);
  return { body, type, etag: `"${digest.toString('base64url').slice(0, 22)}"`, gzip: compress ? gzipSync(body, { level: 9 }) : undefined, brotli: compress ? brotliCompressSync(body) : undefined };
}

/** Every file directly inside each directory; a later directory's file of the same name wins. */
export function loadAssets(dirs: readonly string[]): Assets {
  const byUrl = new Map<string, Asset>();
  const names = new Map<string, string>();
  for (const dir of dirs) {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (!entry.isFile() || entry.name.startsWith('.')) continue;
      const body = readFileSync(join(dir, entry.name));
      // One digest names the file and tags it.
      const digest = createHash('sha256').update(body).digest();
      const url = ASSET_PATH_PREFIX + hashedName(entry.name, digest);
      // A file replaced by a later directory's one of the same name is not served at all.
      const replaced = names.get(entry.name);
      if (replaced) byUrl.delete(replaced);
      names.set(entry.name, url);
      byUrl.set(url, load(entry.name, body, digest));
    }
  }
  const handler: RequestHandler = (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    const asset = byUrl.get(req.path);
    if (!asset) return req.path.startsWith(ASSET_PATH_PREFIX) ? void res.status(404).type('text/plain').send('no such asset') : next();
    res.setHeader('Content-Type', asset.type);
    res.setHeader('Cache-Control', `public, max-age=${ONE_YEAR_S}, immutable`);
    res.setHeader('ETag', asset.etag);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Vary', 'Accept-Encoding');
    if (req.headers['if-none-match'] === asset.etag) return void res.status(304).end();
    const accepts = String(req.headers['accept-encoding'] ?? '');
    const [encoding, body] = asset.brotli && /\bbr\b/.test(accepts) ? ['br', asset.brotli] : asset.gzip && /\bgzip\b/.test(accepts) ? ['gzip', asset.gzip] : [undefined, asset.body];
    if (encoding) res.setHeader('Content-Encoding', encoding);
    res.setHeader('Content-Length', String(body.length));
    res.status(200).end(req.method === 'HEAD' ? undefined : body);
  };
  return {
    url(name) {
      const url = names.get(name);
      if (!url) throw new Error(`no asset named ${name}`);
      return url;
    },
    handler,
    names,
  };
}
