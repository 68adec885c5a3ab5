import { isIP } from 'node:net';
import { MAX_LABEL_CHARS, MAX_NAME_CHARS, nameShapeProblem, normaliseIp, parseHostname, type HostnameProblem, type NameShapeProblem } from '@dv/net';
import type { TargetKind } from './tools.ts';

// Pre-validation of a lookup target, before anything reaches the engine: a target refused here
// sends no DNS query at all. The engine validates again (TargetError); this layer exists so the
// reason a client reads is specific and the quota is never touched by garbage. The grammar is
// @dv/net's; the wording of each problem is this API's.

export { normaliseIp };

export type TargetCheck = { ok: true; target: string; isIp: boolean } | { ok: false; reason: string };

/** Raw input beyond this is refused before any parsing (a domain has at most 253 characters). */
const MAX_RAW_CHARS = 1_024;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

function shapeReason(shape: Exclude<NameShapeProblem, 'colon'>, kind: Exclude<TargetKind, 'record'>): string {
  if (shape === 'spaces') return 'The target contains spaces; give exactly one domain name' + (kind === 'domain_or_ip' ? ' or IP address.' : '.');
  if (shape === 'mailbox') return 'That looks like an email address; give only its domain (the part after @).';
  return 'That looks like a URL or path; give only the host name, e.g. example.com.';
}

function hostnameReason(problem: HostnameProblem): string {
  switch (problem.code) {
    case 'too_long':
      return problem.ascii
        ? `The domain is ${problem.chars} characters long in its ASCII form; the maximum is ${MAX_NAME_CHARS}.`
        : `The domain is ${problem.chars} characters long; the maximum is ${MAX_NAME_CHARS}.`;
    case 'single_label':
      return 'Give a full domain name with at least two labels, e.g. example.com.';
    case 'empty_label':
      return 'The domain has an empty label (two dots in a row, or a leading dot).';
    case 'label_too_long':
      return `The label "${problem.label.slice(0, 20)}…" is ${problem.chars} characters long; the maximum is ${MAX_LABEL_CHARS}.`;
    case 'label_chars':
      return `The label "${problem.label}" may only hold letters, digits, hyphens and underscores, and may not start or end with a hyphen.`;
    case 'numeric_tld':
      return 'The target is neither a valid IP address nor a domain name (its last label is numeric).';
    default:
      return 'The target is not a valid domain name.';
  }
}

export function checkTarget(raw: string, kind: Exclude<TargetKind, 'record'>): TargetCheck {
  if (raw.length > MAX_RAW_CHARS) return { ok: false, reason: `The target is ${raw.length} characters long; a domain has at most ${MAX_NAME_CHARS}.` };
  if (CONTROL.test(raw)) return { ok: false, reason: 'The target contains control characters.' };
  const trimmed = raw.trim();
  if (trimmed === '') return { ok: false, reason: 'The target is empty; give one domain name' + (kind === 'domain_or_ip' ? ' or IP address.' : '.') };
  const shape = nameShapeProblem(trimmed);
  if (shape !== null && shape !== 'colon') return { ok: false, reason: shapeReason(shape, kind) };

  const bare = trimmed.startsWith('[') && trimmed.endsWith(']') ? trimmed.slice(1, -1) : trimmed;
  // A zone id (fe80::1%eth0) names an interface of the asker, not a host on the internet.
  const family = bare.includes('%') ? 0 : isIP(bare);
  if (family !== 0) {
    if (kind !== 'domain_or_ip') return { ok: false, reason: 'This tool takes a domain name, not an IP address (dns, whois and blacklist accept IPs).' };
    return { ok: true, target: normaliseIp(bare, family), isIp: true };
  }
  if (shape === 'colon') return { ok: false, reason: 'The target is not a valid domain name or IP address.' };
  const parsed = parseHostname(trimmed);
  return parsed.ok ? { ok: true, target: parsed.name, isIp: false } : { ok: false, reason: hostnameReason(parsed.problem) };
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
