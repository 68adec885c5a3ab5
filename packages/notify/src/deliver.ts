import type { Readable } from 'node:stream';
import { isRedirect, pinnedRequest, ResponseBodyError, type PinnedResponse } from '@dv/net';
import { NOTIFY_DEFAULTS } from './defaults.ts';
import { SIGNATURE_HEADER, signWebhook } from './signature.ts';
import type { CheckedTarget } from './target.ts';

// One signed POST to a vetted target, sent with @dv/net's pinned request: the socket goes to the
// addresses checkTarget vetted (the name is never resolved a second time), while Host and TLS SNI
// carry the name so virtual hosts and certificates work. Redirects are never followed (a 3xx is
// reported as a failure), the whole exchange has one deadline and at most maxResponseBytes of the
// answer are read.

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

function snippet(chunks: Buffer[]): string {
  const text = Buffer.concat(chunks).subarray(0, ERROR_SNIPPET_BYTES).toString('utf8');
  return text.replace(/[^\x20-\x7e]+/g, ' ').trim();
}

interface BodyRead {
  bytes: number;
  truncated: boolean;
  /** The first bytes, for the error message of a non-2xx answer. */
  kept: Buffer[];
}

/**
 * Reads the body until it ends, breaks, passes the cap or the deadline (`untilMs` from now), then
 * resolves; never rejects. Once a status has arrived it decides, whatever the body does next.
 * Iterating (not listening for events) also sees an error raised before this reader attached.
 */
async function readBody(body: Readable, untilMs: number, maxBytes: number): Promise<BodyRead> {
  const read: BodyRead = { bytes: 0, truncated: false, kept: [] };
  let keptBytes = 0;
  const timer = setTimeout(() => {
    read.truncated = true;
    body.destroy();
  }, Math.max(0, untilMs));
  try {
    for await (const chunk of body) {
      const buf = chunk as Buffer;
      if (keptBytes < ERROR_SNIPPET_BYTES) {
        read.kept.push(buf);
        keptBytes += buf.length;
      }
      read.bytes += buf.length;
    }
  } catch (err) {
    // Past the cap the read ends: the socket is closed instead of draining the rest.
    if (err instanceof ResponseBodyError && err.kind === 'too_large') {
      read.truncated = true;
      read.bytes = maxBytes;
    }
  } finally {
    clearTimeout(timer);
    body.destroy();
  }
  return read;
}

function byStatus(status: number, read: BodyRead): { outcome: DeliveryOutcome; error: string | null } {
  if (status >= 200 && status < 300) return { outcome: 'delivered', error: null };
  if (isRedirect(status)) return { outcome: 'redirect', error: `HTTP ${status}: redirects are not followed` };
  const body = snippet(read.kept);
  return { outcome: 'http_status', error: `HTTP ${status}${body ? `: ${body}` : ''}` };
}

export async function deliverOnce(target: CheckedTarget, rawBody: string, secret: string, opts: DeliverOptions = {}): Promise<DeliveryResult> {
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
    return { ...base, delivered: false, outcome: 'refused', status: null, error: 'a header value contains forbidden characters', durationMs: 0 };
  }
  const elapsed = () => Math.round(performance.now() - started);
  const res = await pinnedRequest(target, { method: 'POST', headers, body: rawBody, timeoutMs, maxBodyBytes: maxBytes, ...(opts.ca ? { ca: opts.ca } : {}) });
  if (!res.ok) {
    const error = res.reason === 'timeout' ? `no response within ${timeoutMs} ms` : `${res.code ?? 'error'}: ${res.detail}`.slice(0, 300);
    return { ...base, delivered: false, outcome: res.reason === 'timeout' ? 'timeout' : 'network', status: null, error, durationMs: elapsed() };
  }
  return finishDelivery(res, await readBody(res.body, timeoutMs - (performance.now() - started), maxBytes), elapsed());
}

function finishDelivery(res: PinnedResponse, read: BodyRead, durationMs: number): DeliveryResult {
  const { outcome, error } = byStatus(res.status, read);
  return { delivered: outcome === 'delivered', outcome, status: res.status, error, responseBytes: read.bytes, truncated: read.truncated, durationMs };
}
