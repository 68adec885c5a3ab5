import { createHmac, timingSafeEqual } from 'node:crypto';
import { NOTIFY_DEFAULTS } from './defaults.ts';

// Webhook signatures (`X-Verify-Signature: t=<unix>,v1=<hex>`) and signed CSV download links.
// Both are HMAC-SHA256 in hex; both are compared in constant time so a forger learns nothing from
// how long a refusal takes. docs/notify.md carries the receiver-side recipes.

export const SIGNATURE_HEADER = 'X-Verify-Signature';

type Bytes = string | Uint8Array;

function hmacHex(secret: string, ...parts: Bytes[]): string {
  const h = createHmac('sha256', secret);
  for (const p of parts) h.update(p);
  return h.digest('hex');
}

/** The `X-Verify-Signature` value: HMAC-SHA256(secret, `<t>.<raw body>`) with t in unix seconds. */
export function signWebhook(secret: string, rawBody: Bytes, nowS: number = Math.floor(Date.now() / 1000)): string {
  const t = Math.floor(nowS);
  return `t=${t},v1=${hmacHex(secret, `${t}.`, rawBody)}`;
}

export interface ParsedSignature {
  t: number;
  /** Every v1 value (more than one while a receiver-side secret rotation is in progress). */
  v1: string[];
}

/** Parses `t=<unix>,v1=<hex>[,v1=<hex>…]`; unknown schemes are ignored (forward compatible). */
export function parseSignatureHeader(header: string): ParsedSignature | null {
  let t: number | null = null;
  const v1: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't' && /^\d{1,12}$/.test(value)) t = Number(value);
    else if (key === 'v1' && /^[0-9a-f]{64}$/.test(value)) v1.push(value);
  }
  return t === null || v1.length === 0 ? null : { t, v1 };
}

export interface VerifyOptions {
  /** Refuse signatures whose t is further than this from now (replay window); default 300 s. */
  toleranceS?: number;
  nowS?: number;
}

/** True when `header` signs `rawBody` (the exact bytes received) with `secret`, within the tolerance. */
export function verifyWebhookSignature(header: string | null | undefined, rawBody: Bytes, secret: string, opts: VerifyOptions = {}): boolean {
  if (!header) return false;
  const parsed = parseSignatureHeader(header);
  if (!parsed) return false;
  const nowS = opts.nowS ?? Math.floor(Date.now() / 1000);
  const toleranceS = opts.toleranceS ?? NOTIFY_DEFAULTS.signatureToleranceS;
  const want = Buffer.from(hmacHex(secret, `${parsed.t}.`, rawBody), 'hex');
  // Check every candidate before looking at the time, so all refusals take the same path.
  let match = false;
  for (const candidate of parsed.v1) match = timingSafeEqual(want, Buffer.from(candidate, 'hex')) || match;
  return match && Math.abs(nowS - parsed.t) <= toleranceS;
}

// Signed download links (the gateway mints and checks them, the completion email mints them; one
// implementation for both): sig = hex HMAC-SHA256(secret, `<job_id>.<exp>`), exp = unix seconds.
// A link to a part of the results (one decision or status) or to NDJSON signs that choice too,
// `<job_id>.<exp>.<scope>`, so a link given out for the rows to send never opens every row. The
// whole CSV has no scope: its message, and every link already mailed, stay as they were.

export interface DownloadVariant {
  format?: 'csv' | 'ndjson';
  decision?: 'send' | 'review' | 'drop';
  status?: 'deliverable' | 'undeliverable' | 'risky' | 'unknown';
}

/** The signed scope of a variant: '' for the whole CSV, else `format[;decision=…][;status=…]`. */
export function downloadScope(v: DownloadVariant = {}): string {
  const format = v.format ?? 'csv';
  if (format === 'csv' && !v.decision && !v.status) return '';
  return [format, v.decision ? `decision=${v.decision}` : '', v.status ? `status=${v.status}` : ''].filter(Boolean).join(';');
}

export function downloadSignature(jobId: string, expS: number, secret: string, scope = ''): string {
  return scope ? hmacHex(secret, `${jobId}.${expS}.${scope}`) : hmacHex(secret, `${jobId}.${expS}`);
}

/**
 * `<baseUrl>/v1/downloads/<job_id>.<csv|ndjson>?[decision=…&][status=…&]exp=<unix>&sig=<hex>`;
 * baseUrl without a trailing slash is expected, one is dropped.
 */
export function signDownloadUrl(baseUrl: string, jobId: string, secret: string, expS: number, variant: DownloadVariant = {}): string {
  const exp = Math.floor(expS);
  const filters = `${variant.decision ? `decision=${variant.decision}&` : ''}${variant.status ? `status=${variant.status}&` : ''}`;
  return `${baseUrl.replace(/\/+$/, '')}/v1/downloads/${encodeURIComponent(jobId)}.${variant.format ?? 'csv'}?${filters}exp=${exp}&sig=${downloadSignature(jobId, exp, secret, downloadScope(variant))}`;
}

export type DownloadCheck = 'ok' | 'expired' | 'bad_signature';

/** Tri-state check of a download link's query (`exp`, `sig` as received, strings) for a variant's scope. */
export function checkDownloadSignature(jobId: string, exp: string, sig: string, secret: string, nowS: number = Math.floor(Date.now() / 1000), scope = ''): DownloadCheck {
  if (!/^\d{1,12}$/.test(exp) || !/^[0-9a-f]{64}$/.test(sig)) return 'bad_signature';
  const want = Buffer.from(downloadSignature(jobId, Number(exp), secret, scope), 'hex');
  // Compare before looking at the time, so a forged link and an expired one take the same path.
  if (!timingSafeEqual(want, Buffer.from(sig, 'hex'))) return 'bad_signature';
  return Number(exp) < nowS ? 'expired' : 'ok';
}

/** True when the link is authentic and not yet expired. */
export function verifyDownloadSignature(jobId: string, exp: string | number, sig: string, secret: string, nowS?: number): boolean {
  return checkDownloadSignature(jobId, String(exp), sig, secret, nowS) === 'ok';
}
