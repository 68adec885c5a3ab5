// Target validation: every tool checks its target here and throws TargetError before any DNS query,
// so a bad or forbidden target never reaches the wire. The rules are @dv/net's (domain grammar,
// public-name policy, special-purpose ranges); this module words their problems as TargetErrors.
import { isIP } from 'node:net';
import { isSpecialPurposeIp, nameShapeProblem, parseHostname, publicNameProblem, type HostnameProblem, type PublicNameProblem } from '@dv/net';
import { TargetError } from './tools/types.ts';

// On mailsec's surface too: the lookup tools and the portfolio scanner reach them through it.
export { isSpecialPurposeIp, organizationalDomain } from '@dv/net';

export type Target = { kind: 'domain'; domain: string } | { kind: 'ip'; ip: string; family: 4 | 6 };

export interface TargetRules {
  /** IP addresses are accepted (whois_lookup, blacklist_check, dns_lookup for PTR). */
  allowIp: boolean;
  /** Loopback, private, link-local, documentation and other special-purpose addresses are accepted. */
  allowPrivate: boolean;
}

function problemMessage(problem: HostnameProblem | PublicNameProblem, shown: string): string {
  switch (problem.code) {
    case 'empty':
      return 'the target is empty';
    case 'too_long':
      return problem.ascii ? `"${shown}" is not a valid domain name` : 'the domain is longer than 253 characters';
    case 'single_label':
      return `"${shown}" is a single label, not a domain name`;
    case 'special_use_tld':
      return `"${shown}" is under the special-use ".${problem.tld}" name space`;
    case 'ip_address':
      return `"${shown}" is an IP address`;
    case 'public_suffix':
      return `"${shown}" is a public suffix, not a domain`;
    default:
      return `"${shown}" is not a valid domain name`;
  }
}

/**
 * Normalizes and checks a domain: trims, drops one trailing dot, lowercases, converts a Unicode
 * name to its A-label form, then requires a syntactically valid multi-label hostname that is not a
 * bare public suffix (tldts) and not under a special-use TLD. Returns the normalized name.
 */
export function checkDomain(input: string): string {
  const raw = input.trim();
  const shown = preview(raw.replace(/\.$/, ''));
  if (raw !== '' && nameShapeProblem(raw) !== null) throw new TargetError(`"${shown}" is not a domain name (send the bare domain, without scheme, path, port or mailbox)`);
  const parsed = parseHostname(raw);
  if (!parsed.ok) throw new TargetError(problemMessage(parsed.problem, shown));
  const policy = publicNameProblem(parsed.name);
  if (policy) throw new TargetError(problemMessage(policy, shown));
  return parsed.name;
}

/** Checks a target that may be a domain or (when allowed) an IP address. */
export function checkTarget(input: string | undefined, rules: TargetRules): Target {
  if (input === undefined || input.trim() === '') throw new TargetError('a target domain is required');
  const text = input.trim();
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const family = isIP(bare);
  if (family !== 0) {
    if (!rules.allowIp) throw new TargetError(`"${text}" is an IP address; this tool takes a domain`);
    if (!rules.allowPrivate && isSpecialPurposeIp(bare)) throw new TargetError(`"${text}" is a private or special-purpose address`);
    return { kind: 'ip', ip: bare.toLowerCase(), family: family === 4 ? 4 : 6 };
  }
  if (/^[\d.]+$/.test(text)) throw new TargetError(`"${preview(text)}" is not a valid IP address or domain`);
  return { kind: 'domain', domain: checkDomain(text) };
}

function preview(text: string): string {
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
