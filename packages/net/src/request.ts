// One HTTP(S) request to a vetted, pinned target.
//
// Contract: the socket goes only to the addresses `checkTarget` vetted (a pinned `lookup`; the
// name is never resolved again), while the Host header and TLS SNI carry the name so virtual hosts
// and certificates work. Redirects are never followed: a 3xx comes back as any other status, so no
// request ever reaches a host that was not vetted. `timeoutMs` bounds connect, TLS, the request and
// the response headers; `signal` may end the wait for them sooner. The outcome is typed: a
// `PinnedResponse` whose `body` passes at most `maxBodyBytes` and then fails with
// `ResponseBodyError('too_large')` (or 'broken' when the connection breaks mid-body), or a
// `PinnedFailure`. Nothing here throws or leaves an uncaught error behind; callers word outcomes.
// The body may fail before its reader attaches (the error is kept, `body.errored`): read it by
// iterating (for await, stream.pipeline), which throws a kept error, not by waiting for 'error'.
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { pinnedLookup } from './pinned-lookup.ts';
import type { CheckedTarget } from './target.ts';

export interface PinnedRequestOptions {
  method: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Connect, TLS, request and response headers must all happen within this. */
  timeoutMs: number;
  /** Response body bytes passed on at most; past them the body fails with 'too_large'. */
  maxBodyBytes: number;
  /** TESTS: trust this CA for the server's certificate. Production uses the system store. */
  ca?: string | Buffer | Array<string | Buffer>;
  /** Ends the wait for the response headers (after them the caller owns the body). */
  signal?: AbortSignal;
}

export type PinnedFailure = { ok: false; reason: 'timeout' | 'network' | 'aborted'; detail: string; code?: string };

export interface PinnedResponse {
  ok: true;
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Readable;
}

export class ResponseBodyError extends Error {
  readonly kind: 'too_large' | 'broken';
  constructor(kind: 'too_large' | 'broken', message: string) {
    super(message);
    this.name = 'ResponseBodyError';
    this.kind = kind;
  }
}

export function isRedirect(status: number): boolean {
  return status >= 300 && status < 400;
}

function openRequest(target: CheckedTarget, opts: PinnedRequestOptions): http.ClientRequest {
  const isHttps = target.url.protocol === 'https:';
  return (isHttps ? https.request : http.request)({
    protocol: target.url.protocol,
    hostname: target.hostname,
    port: target.port,
    path: `${target.url.pathname}${target.url.search}`,
    method: opts.method,
    headers: opts.headers ?? {},
    agent: false,
    lookup: pinnedLookup(target),
    ...(isHttps ? { servername: isIP(target.hostname) === 0 ? target.hostname : undefined, ...(opts.ca ? { ca: opts.ca } : {}) } : {}),
  });
}

/** The body as the caller sees it: capped, and failing with a ResponseBodyError instead of hanging. */
function cappedBody(res: http.IncomingMessage, maxBytes: number): Transform {
  let seen = 0;
  const cap = new Transform({
    transform(chunk: Buffer, _enc, cb: TransformCallback) {
      const room = maxBytes - seen;
      seen += chunk.length;
      if (chunk.length <= room) return cb(null, chunk);
      if (room > 0) this.push(chunk.subarray(0, room));
      res.unpipe(cap);
      res.destroy();
      cap.destroy(new ResponseBodyError('too_large', `the response body is larger than ${maxBytes} bytes`));
      cb();
    },
  });
  const broken = (message: string) => {
    if (!cap.destroyed && !cap.writableEnded) cap.destroy(new ResponseBodyError('broken', message));
  };
  res.on('error', (err) => broken(err.message));
  res.on('close', () => {
    if (!res.complete) broken('the connection closed before the body ended');
  });
  // Whoever stops reading (destroys the body) ends the exchange: the socket closes with it.
  cap.on('close', () => res.destroy());
  // An error is kept on the stream (cap.errored) for whoever reads it; this listener only keeps an
  // error raised before the reader attached from becoming an uncaught exception.
  cap.on('error', () => undefined);
  res.pipe(cap);
  return cap;
}

export function pinnedRequest(target: CheckedTarget, opts: PinnedRequestOptions): Promise<PinnedResponse | PinnedFailure> {
  return new Promise((resolve) => {
    let settled = false;
    let body: Transform | undefined;
    const req = openRequest(target, opts);
    const fail = (failure: PinnedFailure) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      req.destroy();
      resolve(failure);
    };
    const timer = setTimeout(() => fail({ ok: false, reason: 'timeout', detail: `no response within ${opts.timeoutMs} ms` }), opts.timeoutMs);
    const onAbort = () => fail({ ok: false, reason: 'aborted', detail: 'the request was aborted' });
    if (opts.signal?.aborted) return onAbort();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    req.on('error', (err: NodeJS.ErrnoException) => {
      // After the headers, a broken connection is the body's failure.
      if (body && !body.destroyed && !body.writableEnded) body.destroy(new ResponseBodyError('broken', err.message));
      fail({ ok: false, reason: 'network', detail: err.message, ...(err.code ? { code: err.code } : {}) });
    });
    req.on('response', (res) => {
      if (settled) return void res.destroy();
      settled = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      body = cappedBody(res, opts.maxBodyBytes);
      resolve({ ok: true, status: res.statusCode ?? 0, headers: res.headers, body });
    });
    req.end(opts.body);
  });
}
