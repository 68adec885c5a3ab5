import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { NOTIFY_DEFAULTS } from './defaults.ts';
import { SIGNATURE_HEADER, signWebhook } from './signature.ts';
import type { CheckedTarget } from './target.ts';

// One signed POST to a vetted target. The socket goes to the addresses checkTarget vetted (a pinned
// `lookup`: the name is never resolved a second time), while Host and TLS SNI carry the name so
// virtual hosts and certificates work. Redirects are never followed (node's http client does not
// follow them; a 3xx is reported as a failure), the whole exchange has one deadline and at most
// maxResponseBytes of the answer are read.

export type DeliveryOutcome = 'delivered' | 'http_status' | 'redirect' | 'timeout' | 'network' | 'refused';

export interface DeliveryResult {
  delivered: boolean;
  outcome: DeliveryOutcome;
  /** The receiver's HTTP status, when one arrived. */
  status: number | null;
  /** Short human-readable reason for a failure (stored as last_error); null when delivered. */
  error: string | null;
  /** Response body bytes read (never more than maxResponseBytes). */
  responseBytes: number;
  truncated: boolean;
  durationMs: number;
}

export interface DeliverOptions {
  timeoutMs?: number;
  maxResponseBytes?: number;
  /** Signature timestamp (unix seconds); now by default. */
  nowS?: number;
  userAgent?: string;
  /** Extra headers (e.g. an event id); refused when a value could break the header block. */
  headers?: Record<string, string>;
  /** TESTS: trust this CA for the receiver's certificate. Production uses the system store. */
  ca?: string | Buffer | Array<string | Buffer>;
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// Visible ASCII and spaces only: CR, LF, NUL and other controls can never reach the wire.
const HEADER_VALUE = /^[\x20-\x7e]*$/;
const ERROR_SNIPPET_BYTES = 200;

/** True when every name is a token and every value is free of control characters. */
export function headersAreSafe(headers: Record<string, string>): boolean {
  return Object.entries(headers).every(([k, v]) => HEADER_NAME.test(k) && HEADER_VALUE.test(v));
}

/** The `lookup` handed to the socket: answers with the vetted addresses, never asks DNS. */
function pinnedLookup(target: CheckedTarget): LookupFunction {
  return (_hostname, options, callback) => {
    const wanted = options.family === 4 || options.family === 6 ? target.addresses.filter((a) => a.family === options.family) : target.addresses;
    const list = wanted.length > 0 ? wanted : target.addresses;
    if (options.all) (callback as (err: null, addresses: { address: string; family: number }[]) => void)(null, list);
    else callback(null, list[0]!.address, list[0]!.family);
  };
}

function snippet(chunks: Buffer[]): string {
  const text = Buffer.concat(chunks).subarray(0, ERROR_SNIPPET_BYTES).toString('utf8');
  return text.replace(/[^\x20-\x7e]+/g, ' ').trim();
}

// eslint-disable-next-line max-lines-per-function -- still to be split into named steps
export function deliverOnce(target: CheckedTarget, rawBody: string, secret: string, opts: DeliverOptions = {}): Promise<DeliveryResult> {
  const started = performance.now();
  const timeoutMs = opts.timeoutMs ?? NOTIFY_DEFAULTS.webhookTimeoutMs;
  const maxBytes = opts.maxResponseBytes ?? NOTIFY_DEFAULTS.maxResponseBytes;
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    'Content-Length': String(Buffer.byteLength(rawBody)),
    'User-Agent': opts.userAgent ?? NOTIFY_DEFAULTS.userAgent,
    ...opts.headers,
    [SIGNATURE_HEADER]: signWebhook(secret, rawBody, opts.nowS),
  };
  const base = { responseBytes: 0, truncated: false };
  if (!headersAreSafe(headers)) {
    return Promise.resolve({ ...base, delivered: false, outcome: 'refused', status: null, error: 'a header value contains forbidden characters', durationMs: 0 });
  }
  const isHttps = target.url.protocol === 'https:';
  const request = isHttps ? https.request : http.request;

  return new Promise<DeliveryResult>((resolve) => {
    let settled = false;
    let status: number | null = null;
    let bytes = 0;
    let truncated = false;
    const kept: Buffer[] = [];
    let keptBytes = 0;
    const finish = (outcome: DeliveryOutcome, error: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve({ delivered: outcome === 'delivered', outcome, status, error, responseBytes: bytes, truncated, durationMs: Math.round(performance.now() - started) });
    };
    const byStatus = () => {
      const s = status as number;
      if (s >= 200 && s < 300) return finish('delivered', null);
      if (s >= 300 && s < 400) return finish('redirect', `HTTP ${s}: redirects are not followed`);
      const body = snippet(kept);
      finish('http_status', `HTTP ${s}${body ? `: ${body}` : ''}`);
    };

    const req = request({
      protocol: target.url.protocol,
      hostname: target.hostname,
      port: target.port,
      path: `${target.url.pathname}${target.url.search}`,
      method: 'POST',
      headers,
      agent: false,
      lookup: pinnedLookup(target),
      ...(isHttps ? { servername: isIP(target.hostname) === 0 ? target.hostname : undefined, ...(opts.ca ? { ca: opts.ca } : {}) } : {}),
    });
    // One deadline for everything; once a status has arrived, it decides and the rest of the body is dropped.
    const timer = setTimeout(() => {
      if (status !== null) {
        truncated = true;
        return byStatus();
      }
      finish('timeout', `no response within ${timeoutMs} ms`);
    }, timeoutMs);

    req.on('response', (res) => {
      status = res.statusCode ?? 0;
      res.on('data', (chunk: Buffer) => {
        const take = Math.min(maxBytes - bytes, chunk.length);
        if (keptBytes < ERROR_SNIPPET_BYTES) {
          kept.push(chunk.subarray(0, take));
          keptBytes += take;
        }
        bytes += take;
        // Past the cap the read ends: the socket is closed instead of draining the rest.
        if (take < chunk.length) {
          truncated = true;
          byStatus();
        }
      });
      res.on('end', byStatus);
      res.on('aborted', byStatus);
      res.on('error', byStatus);
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (status !== null) return byStatus();
      finish('network', `${err.code ?? 'error'}: ${err.message}`.slice(0, 300));
    });
    req.end(rawBody);
  });
}
