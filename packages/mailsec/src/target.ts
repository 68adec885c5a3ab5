// Target validation: every tool checks its target here and throws TargetError before any DNS query,
// so a bad or forbidden target never reaches the wire.
import { BlockList, isIP } from 'node:net';
import { domainToASCII } from 'node:url';
import { parse as parseDomain } from 'tldts';
import { TargetError } from './tools/types.ts';

export type Target = { kind: 'domain'; domain: string } | { kind: 'ip'; ip: string; family: 4 | 6 };

export interface TargetRules {
  /** IP addresses are accepted (whois_lookup, blacklist_check, dns_lookup for PTR). */
  allowIp: boolean;
  /** Loopback, private, link-local, documentation and other special-purpose addresses are accepted. */
  allowPrivate: boolean;
}

/**
 * Names that never mean a public domain: RFC 6761/6762/7686 special-use TLDs and the ones home
 * routers and intranets use. `.test` and `.example` stay allowed: the simulated world lives there.
 */
const NON_PUBLIC_TLDS = new Set(['localhost', 'local', 'invalid', 'onion', 'internal', 'lan', 'home', 'corp', 'localdomain', 'alt', 'arpa']);

// LDH labels; "_" is allowed below the TLD because service names (_dmarc, _domainkey, _sip._tcp)
// are ordinary DNS names people look up.
const LABEL = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/;
const TLD = /^(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/;

// Separate lists: a BlockList answers an IPv4 check from IPv4-mapped IPv6 rules too.
const SPECIAL_V4 = new BlockList();
const SPECIAL_V6 = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24],
  ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) SPECIAL_V4.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128], ['::1', 128], ['::ffff:0:0', 96], ['64:ff9b::', 96], ['100::', 64], ['2001::', 23], ['2001:db8::', 32], ['2002::', 16],
  ['fc00::', 7], ['fe80::', 10], ['ff00::', 8],
] as const) SPECIAL_V6.addSubnet(net, prefix, 'ipv6');

/** True for addresses no public DNSBL or registry can say anything useful about. */
export function isSpecialPurposeIp(ip: string): boolean {
  const family = isIP(ip);
  if (family === 0) return false;
  return family === 4 ? SPECIAL_V4.check(ip, 'ipv4') : SPECIAL_V6.check(ip, 'ipv6');
}

/**
 * Normalizes and checks a domain: trims, drops one trailing dot, lowercases, converts a Unicode
 * name to its A-label form, then requires a syntactically valid multi-label hostname that is not a
 * bare public suffix (tldts) and not under a special-use TLD. Returns the normalized name.
 */
export function checkDomain(input: string): string {
  const raw = input.trim().replace(/\.$/, '');
  if (raw === '') throw new TargetError('the target is empty');
  if (raw.length > 253) throw new TargetError('the domain is longer than 253 characters');
  if (/[/:@\s]/.test(raw)) throw new TargetError(`"${preview(raw)}" is not a domain name (send the bare domain, without scheme, path, port or mailbox)`);
  const ascii = /^[\x21-\x7e]+$/.test(raw) ? raw.toLowerCase() : domainToASCII(raw);
  if (ascii === '' || ascii.length > 253) throw new TargetError(`"${preview(raw)}" is not a valid domain name`);
  const labels = ascii.split('.');
  if (labels.length < 2) throw new TargetError(`"${preview(raw)}" is a single label, not a domain name`);
  const tld = labels[labels.length - 1] as string;
  if (!labels.every((l) => LABEL.test(l)) || !TLD.test(tld)) throw new TargetError(`"${preview(raw)}" is not a valid domain name`);
  if (NON_PUBLIC_TLDS.has(tld)) throw new TargetError(`"${preview(raw)}" is under the special-use ".${tld}" name space`);
  const parsed = parseDomain(ascii);
  if (parsed.isIp) throw new TargetError(`"${preview(raw)}" is an IP address`);
  if (parsed.domain === null) throw new TargetError(`"${preview(raw)}" is a public suffix, not a domain`);
  return ascii;
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

/** The registrable (organizational) domain by the Public Suffix List; the name itself if none. */
export function organizationalDomain(domain: string): string {
  return parseDomain(domain).domain ?? domain;
}

function preview(text: string): string {
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
