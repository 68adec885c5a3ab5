import { isIP } from 'node:net';
import { domainToASCII } from 'node:url';
import type { TargetKind } from './tools.ts';

// Pre-validation of a lookup target, before anything reaches the engine: a target refused here
// sends no DNS query at all. The engine validates again (TargetError); this layer exists so the
// reason a client reads is specific and the quota is never touched by garbage.

export type TargetCheck = { ok: true; target: string; isIp: boolean } | { ok: false; reason: string };

/** Raw input beyond this is refused before any parsing (a domain has at most 253 characters). */
const MAX_RAW_CHARS = 1_024;
const MAX_DOMAIN_CHARS = 253;
const MAX_LABEL_CHARS = 63;
// Letters, digits, hyphen; underscore too, since `_dmarc.x` and `sel._domainkey.x` are real owner names.
const LABEL = /^[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?$/;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

export function checkTarget(raw: string, kind: Exclude<TargetKind, 'record'>): TargetCheck {
  if (raw.length > MAX_RAW_CHARS) return { ok: false, reason: `The target is ${raw.length} characters long; a domain has at most ${MAX_DOMAIN_CHARS}.` };
  if (CONTROL.test(raw)) return { ok: false, reason: 'The target contains control characters.' };
  const trimmed = raw.trim();
  if (trimmed === '') return { ok: false, reason: 'The target is empty; give one domain name' + (kind === 'domain_or_ip' ? ' or IP address.' : '.') };
  if (/\s/.test(trimmed)) return { ok: false, reason: 'The target contains spaces; give exactly one domain name' + (kind === 'domain_or_ip' ? ' or IP address.' : '.') };
  if (trimmed.includes('@')) return { ok: false, reason: 'That looks like an email address; give only its domain (the part after @).' };
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) || trimmed.includes('/')) return { ok: false, reason: 'That looks like a URL or path; give only the host name, e.g. example.com.' };

  const bare = trimmed.startsWith('[') && trimmed.endsWith(']') ? trimmed.slice(1, -1) : trimmed;
  // A zone id (fe80::1%eth0) names an interface of the asker, not a host on the internet.
  const family = bare.includes('%') ? 0 : isIP(bare);
  if (family !== 0) {
    if (kind !== 'domain_or_ip') return { ok: false, reason: 'This tool takes a domain name, not an IP address (dns, whois and blacklist accept IPs).' };
    return { ok: true, target: normaliseIp(bare, family), isIp: true };
  }
  if (bare.includes(':')) return { ok: false, reason: 'The target is not a valid domain name or IP address.' };

  const noDot = trimmed.endsWith('.') ? trimmed.slice(0, -1) : trimmed;
  if (noDot.length > MAX_DOMAIN_CHARS) return { ok: false, reason: `The domain is ${noDot.length} characters long; the maximum is ${MAX_DOMAIN_CHARS}.` };
  // WHATWG host parsing: lower-cases, maps internationalised names to punycode and refuses
  // forbidden code points. An empty answer means the name is not a valid host.
  const ascii = domainToASCII(noDot);
  if (ascii === '') return { ok: false, reason: 'The target is not a valid domain name.' };
  if (ascii.length > MAX_DOMAIN_CHARS) return { ok: false, reason: `The domain is ${ascii.length} characters long in its ASCII form; the maximum is ${MAX_DOMAIN_CHARS}.` };
  const labels = ascii.split('.');
  if (labels.length < 2) return { ok: false, reason: 'Give a full domain name with at least two labels, e.g. example.com.' };
  for (const label of labels) {
    if (label.length === 0) return { ok: false, reason: 'The domain has an empty label (two dots in a row, or a leading dot).' };
    if (label.length > MAX_LABEL_CHARS) return { ok: false, reason: `The label "${label.slice(0, 20)}…" is ${label.length} characters long; the maximum is ${MAX_LABEL_CHARS}.` };
    if (!LABEL.test(label)) return { ok: false, reason: `The label "${label}" may only hold letters, digits, hyphens and underscores, and may not start or end with a hyphen.` };
  }
  if (/^\d+$/.test(labels[labels.length - 1] ?? '')) return { ok: false, reason: 'The target is neither a valid IP address nor a domain name (its last label is numeric).' };
  return { ok: true, target: ascii, isIp: false };
}

/** One spelling per address, so the cache and the quota see `::FFFF:1.2.3.4` and `1.2.3.4` as the same. */
export function normaliseIp(ip: string, family: number = isIP(ip)): string {
  if (family === 4) return ip;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped?.[1] && isIP(mapped[1]) === 4) return mapped[1];
  // The URL parser prints IPv6 in its canonical compressed lower-case form (RFC 5952).
  return new URL(`http://[${ip}]/`).hostname.slice(1, -1);
}

export type RecordCheck = { ok: true; record: string } | { ok: false; reason: string };

/** validate's pasted record: one line of printable text; tabs count as spaces. */
export function checkRecord(raw: string, maxChars: number): RecordCheck {
  const record = raw.replace(/\t/g, ' ').trim();
  if (record === '') return { ok: false, reason: 'The record is empty; paste an SPF ("v=spf1 …") or DMARC ("v=DMARC1; …") record.' };
  if (record.length > maxChars) return { ok: false, reason: `The record is ${record.length} characters long; the maximum is ${maxChars}.` };
  if (CONTROL.test(record)) return { ok: false, reason: 'The record contains control characters or line breaks; paste it as one line.' };
  return { ok: true, record };
}
