// Domain-name grammar, once for the whole platform.
//
// Contract: pure functions that return typed problems, never messages; each caller words them in
// its own error model. `parseHostname` is the syntax (RFC 1035 limits, LDH labels with `_` allowed
// since `_dmarc.x` and `sel._domainkey.x` are real owner names, IDN through the WHATWG host
// parser); `publicNameProblem` is the policy on top for names that must be public, registrable
// domains (IANA TLD grammar, special-use TLDs, the Public Suffix List through tldts).
import { domainToASCII } from 'node:url';
import { parse as parseDomain } from 'tldts';

export const MAX_NAME_CHARS = 253;
export const MAX_LABEL_CHARS = 63;

export type NameShapeProblem = 'spaces' | 'mailbox' | 'url' | 'colon';

export type HostnameProblem =
  | { code: 'empty' }
  /** `ascii`: the limit was passed only by the A-label form of an internationalised name. */
  | { code: 'too_long'; chars: number; ascii: boolean }
  /** The WHATWG host parser refused the name (forbidden code point, bad punycode, numeric tail). */
  | { code: 'invalid' }
  | { code: 'single_label' }
  | { code: 'empty_label' }
  | { code: 'label_too_long'; label: string; chars: number }
  | { code: 'label_chars'; label: string }
  | { code: 'numeric_tld' };

export type PublicNameProblem = { code: 'bad_tld' } | { code: 'special_use_tld'; tld: string } | { code: 'ip_address' } | { code: 'public_suffix' };

export type HostnameCheck = { ok: true; name: string; labels: string[] } | { ok: false; problem: HostnameProblem };

const LABEL = /^[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?$/;
const TLD = /^(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/;

/**
 * Names that never mean a public domain: RFC 6761/6762/7686 special-use TLDs and the ones home
 * routers and intranets use. `.test` and `.example` stay allowed: the simulated world lives there.
 */
export const NON_PUBLIC_TLDS: ReadonlySet<string> = new Set(['localhost', 'local', 'invalid', 'onion', 'internal', 'lan', 'home', 'corp', 'localdomain', 'alt', 'arpa']);

/** What makes a text something other than a bare name: a space, a mailbox, a URL or path, a port. */
export function nameShapeProblem(text: string): NameShapeProblem | null {
  if (/\s/.test(text)) return 'spaces';
  if (text.includes('@')) return 'mailbox';
  if (text.includes('/')) return 'url';
  if (text.includes(':')) return 'colon';
  return null;
}

/**
 * Syntax of a host name given without surrounding spaces: drops one trailing dot, maps an
 * internationalised name to its A-label form (which also lower-cases), then checks the length,
 * at least two labels, and every label. Returns the ASCII name.
 */
export function parseHostname(text: string): HostnameCheck {
  const noDot = text.endsWith('.') ? text.slice(0, -1) : text;
  const fail = (problem: HostnameProblem): HostnameCheck => ({ ok: false, problem });
  if (noDot === '') return fail({ code: 'empty' });
  if (noDot.length > MAX_NAME_CHARS) return fail({ code: 'too_long', chars: noDot.length, ascii: false });
  const name = domainToASCII(noDot);
  if (name === '') return fail({ code: 'invalid' });
  if (name.length > MAX_NAME_CHARS) return fail({ code: 'too_long', chars: name.length, ascii: true });
  const labels = name.split('.');
  if (labels.length < 2) return fail({ code: 'single_label' });
  for (const label of labels) {
    if (label.length === 0) return fail({ code: 'empty_label' });
    if (label.length > MAX_LABEL_CHARS) return fail({ code: 'label_too_long', label, chars: label.length });
    if (!LABEL.test(label)) return fail({ code: 'label_chars', label });
  }
  if (/^\d+$/.test(labels[labels.length - 1] as string)) return fail({ code: 'numeric_tld' });
  return { ok: true, name, labels };
}

/** Policy for a syntactically valid ASCII name that must be a public, registrable domain; null when it is one. */
export function publicNameProblem(name: string): PublicNameProblem | null {
  const tld = name.slice(name.lastIndexOf('.') + 1);
  if (!TLD.test(tld)) return { code: 'bad_tld' };
  if (NON_PUBLIC_TLDS.has(tld)) return { code: 'special_use_tld', tld };
  const parsed = parseDomain(name);
  if (parsed.isIp) return { code: 'ip_address' };
  if (parsed.domain === null) return { code: 'public_suffix' };
  return null;
}

/** The registrable (organizational) domain by the Public Suffix List; the name itself if none. */
export function organizationalDomain(domain: string): string {
  return parseDomain(domain).domain ?? domain;
}
