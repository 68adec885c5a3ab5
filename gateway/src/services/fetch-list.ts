import { Readable } from 'node:stream';
import { checkTarget, isRedirect, pinnedRequest, ResponseBodyError, type Resolver } from '@dv/net';
import { ApiError } from '@dv/runtime';

// GET of a caller-supplied list URL (MCP verify_list_from_url), SSRF-safe: the URL passes @dv/net's
// guard (https only, no userinfo, allowed ports, every resolved address public, the same rules as
// webhooks) and @dv/net's pinned request connects to the vetted addresses only (a DNS rebind cannot
// redirect it). No redirects are followed; the headers must arrive within `timeoutMs`; the body is
// capped at `maxBytes` (the stream errors with file_too_large past it). @dv/net's typed outcomes
// become the API's errors here.

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

/**
 * The body as the reader sees it: @dv/net's body errors become the API's errors. Iterating (not
 * listening for 'error') also catches an error raised before this reader attached: the body keeps
 * it (`errored`) and the iterator throws it.
 */
function apiBody(body: Readable, maxBytes: number): Readable {
  async function* mapped(): AsyncGenerator<Buffer> {
    try {
      for await (const chunk of body) yield chunk as Buffer;
    } catch (err) {
      // The reader's own error (the MCP deadline destroys the stream with one) passes as it is.
      if (err instanceof ApiError) throw err;
      if (err instanceof ResponseBodyError && err.kind === 'too_large') throw tooLarge(maxBytes);
      throw new ApiError('bad_gateway', `The list download broke off: ${(err as Error).message}.`);
    }
  }
  const out = Readable.from(mapped(), { objectMode: false });
  // The error is kept on the stream (out.errored) and surfaces to whoever reads it; this listener
  // only keeps an error raised before the reader attached from becoming an uncaught exception.
  out.on('error', () => undefined);
  // A reader that stops early (the MCP deadline destroys the stream) ends the download too.
  out.on('close', () => body.destroy());
  return out;
}

export async function fetchList(url: string, opts: FetchListOptions): Promise<FetchedList> {
  const target = await checkTarget(url, { allowHttpLoopback: opts.allowHttpLoopback === true, ...(opts.resolve ? { resolve: opts.resolve } : {}) });
  if (!target.ok) throw new ApiError('invalid_target', `The list URL is refused: ${target.detail}. Give a public https:// URL of a CSV or TXT file.`);
  const res = await pinnedRequest(target, {
    method: 'GET',
    headers: { 'User-Agent': 'dv-gateway-list-fetch/1', Accept: 'text/csv, text/plain, */*' },
    timeoutMs: opts.timeoutMs,
    maxBodyBytes: opts.maxBytes,
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  if (!res.ok) {
    if (res.reason === 'timeout') throw new ApiError('bad_gateway', `The list URL did not answer within ${opts.timeoutMs / 1000} s.`);
    if (res.reason === 'aborted') throw new ApiError('bad_gateway', 'The list download was interrupted.');
    throw new ApiError('bad_gateway', `The list URL could not be fetched: ${res.detail}.`);
  }
  if (res.status < 200 || res.status >= 300) {
    res.body.destroy();
    throw new ApiError('bad_gateway', `The list URL answered HTTP ${res.status}${isRedirect(res.status) ? ' (redirects are not followed; give the final URL)' : ''}.`);
  }
  if (Number(res.headers['content-length'] ?? 0) > opts.maxBytes) {
    res.body.destroy();
    throw tooLarge(opts.maxBytes);
  }
  const contentType = String(res.headers['content-type'] ?? 'text/csv').split(';')[0]!.trim();
  return { body: apiBody(res.body, opts.maxBytes), fileName: listFileName(target.url), contentType };
}
