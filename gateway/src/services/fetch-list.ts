import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { checkTarget, type CheckedTarget, type Resolver } from '@dv/notify';
import { ApiError } from '@dv/runtime';

// GET of a caller-supplied list URL (MCP verify_list_from_url), SSRF-safe: the URL passes the
// webhook guard of @dv/notify (https only, no userinfo, allowed ports, every resolved address
// public) and the connection goes to the vetted addresses only (a DNS rebind cannot redirect it).
// No redirects are followed; the headers must arrive within `timeoutMs`; the body is capped at
// `maxBytes` (the stream errors with file_too_large past it).

export interface FetchListOptions {
  maxBytes: number;
  /** Connect + response headers deadline. */
  timeoutMs: number;
  /** TESTS ONLY (MCP_LIST_URL_ALLOW_HTTP_LOOPBACK): loopback targets over http. */
  allowHttpLoopback?: boolean;
  resolve?: Resolver;
  signal?: AbortSignal;
}

export interface FetchedList {
  body: Readable;
  /** Last path segment of the URL (format sniffing: .txt → TXT, else CSV). */
  fileName: string;
  contentType: string;
}

function tooLarge(maxBytes: number): ApiError {
  const size = maxBytes >= 1024 * 1024 ? `${Math.round(maxBytes / 1024 / 1024)} MB` : `${maxBytes} bytes`;
  return new ApiError('file_too_large', `The list is larger than ${size}; split it.`);
}

/** The URL's last path segment, decoded when it decodes (a malformed escape such as `%E0` stays as sent). */
export function listFileName(url: URL): string {
  const raw = url.pathname.split('/').pop() ?? '';
  let name: string;
  try {
    name = decodeURIComponent(raw);
  } catch {
    name = raw;
  }
  return (name || 'list.csv').replace(/["\r\n]/g, '_').slice(0, 200);
}

function pinnedLookup(target: CheckedTarget): LookupFunction {
  return (_hostname, options, callback) => {
    const list = target.addresses.map((a) => ({ address: a.address, family: a.family }));
    if (options.all) (callback as (err: null, addresses: { address: string; family: number }[]) => void)(null, list);
    else callback(null, list[0]!.address, list[0]!.family);
  };
}

export async function fetchList(url: string, opts: FetchListOptions): Promise<FetchedList> {
  const target = await checkTarget(url, { allowHttpLoopback: opts.allowHttpLoopback === true, ...(opts.resolve ? { resolve: opts.resolve } : {}) });
  if (!target.ok) throw new ApiError('invalid_target', `The list URL is refused: ${target.detail}. Give a public https:// URL of a CSV or TXT file.`);
  const isHttps = target.url.protocol === 'https:';
  const request = isHttps ? https.request : http.request;
  return new Promise<FetchedList>((resolve, reject) => {
    let settled = false;
    const fail = (err: ApiError) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      reject(err);
    };
    const req = request({
      protocol: target.url.protocol,
      hostname: target.hostname,
      port: target.port,
      path: `${target.url.pathname}${target.url.search}`,
      method: 'GET',
      headers: { 'User-Agent': 'dv-gateway-list-fetch/1', Accept: 'text/csv, text/plain, */*' },
      agent: false,
      lookup: pinnedLookup(target),
      ...(isHttps ? { servername: isIP(target.hostname) === 0 ? target.hostname : undefined } : {}),
    });
    const timer = setTimeout(() => fail(new ApiError('bad_gateway', `The list URL did not answer within ${opts.timeoutMs / 1000} s.`)), opts.timeoutMs);
    const onAbort = () => fail(new ApiError('bad_gateway', 'The list download was interrupted.'));
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    req.on('error', (err) => fail(new ApiError('bad_gateway', `The list URL could not be fetched: ${err.message}.`)));
    const onResponse = (res: http.IncomingMessage) => {
      opts.signal?.removeEventListener('abort', onAbort);
      clearTimeout(timer);
      const status = res.statusCode ?? 0;
      if (status < 200 || status >= 300) {
        res.resume();
        return fail(new ApiError('bad_gateway', `The list URL answered HTTP ${status}${status >= 300 && status < 400 ? ' (redirects are not followed; give the final URL)' : ''}.`));
      }
      const declared = Number(res.headers['content-length'] ?? 0);
      if (declared > opts.maxBytes) {
        res.resume();
        return fail(tooLarge(opts.maxBytes));
      }
      let seen = 0;
      const cap = new Transform({
        transform(chunk: Buffer, _enc, cb: TransformCallback) {
          seen += chunk.length;
          if (seen > opts.maxBytes) {
            res.unpipe(cap);
            res.destroy();
            cap.destroy(tooLarge(opts.maxBytes));
            return cb();
          }
          cb(null, chunk);
        },
      });
      // A reset or a broken encoding mid-body reaches the reader as the gateway's error, not a 500.
      res.on('error', (err) => {
        if (!cap.destroyed) cap.destroy(new ApiError('bad_gateway', `The list download broke off: ${err.message}.`));
      });
      // The error is kept on the stream (cap.errored) and surfaces to whoever reads it; this listener
      // only keeps an error raised before the reader attached from becoming an uncaught exception.
      cap.on('error', () => undefined);
      res.pipe(cap);
      settled = true;
      resolve({ body: cap, fileName: listFileName(target.url), contentType: String(res.headers['content-type'] ?? 'text/csv').split(';')[0]!.trim() });
    };
    // Runs from the socket's parser, outside every promise: a throw here would be an uncaught
    // exception that ends the process, so anything unexpected becomes this call's error.
    req.on('response', (res) => {
      try {
        onResponse(res);
      } catch (err) {
        res.destroy();
        fail(new ApiError('bad_gateway', `The list URL's answer could not be read: ${(err as Error).message}.`));
      }
    });
    req.end();
  });
}
