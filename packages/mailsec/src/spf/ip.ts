// IP addresses as SPF sees them: IPv4-mapped IPv6 addresses are IPv4 (RFC 7208 5), prefixes are
// compared bit by bit, and addresses render in the forms the macros need.
import { isIPv4, isIPv6 } from 'node:net';

export interface IpAddress {
  version: 4 | 6;
  bytes: Uint8Array;
}

/** SPF's ip4-network: four decimal octets with no leading zeros (RFC 7208 5.6 "qnum"). */
const QNUM = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]\\d|\\d)';
const IP4_STRICT = new RegExp(`^${QNUM}\\.${QNUM}\\.${QNUM}\\.${QNUM}$`);

export function parseIp4Network(text: string): Uint8Array | null {
  if (!IP4_STRICT.test(text)) return null;
  return Uint8Array.from(text.split('.').map(Number));
}

export function parseIp6Network(text: string): Uint8Array | null {
  // node accepts zone ids ("fe80::1%eth0"); SPF does not.
  if (text.includes('%') || !isIPv6(text)) return null;
  return expandIp6(text);
}

/** Parses a client address; an IPv4-mapped IPv6 address becomes the IPv4 address. */
export function parseIp(text: string): IpAddress | null {
  const t = text.trim();
  if (isIPv4(t)) return { version: 4, bytes: Uint8Array.from(t.split('.').map(Number)) };
  const v6 = parseIp6Network(t);
  if (!v6) return null;
  const mapped = v6.subarray(0, 10).every((b) => b === 0) && v6[10] === 0xff && v6[11] === 0xff;
  if (mapped) return { version: 4, bytes: v6.slice(12) };
  return { version: 6, bytes: v6 };
}

function expandIp6(text: string): Uint8Array {
  let head = text;
  const out = new Uint8Array(16);
  // An embedded dotted quad fills the last 32 bits.
  const lastColon = head.lastIndexOf(':');
  const tail = head.slice(lastColon + 1);
  let tailBytes: number[] = [];
  if (tail.includes('.')) {
    tailBytes = tail.split('.').map(Number);
    head = head.slice(0, lastColon + 1) + '0:0';
  }
  const [left = '', right] = head.split('::');
  const leftGroups = left === '' ? [] : left.split(':');
  const rightGroups = right === undefined || right === '' ? [] : right.split(':');
  const zeros = 8 - leftGroups.length - rightGroups.length;
  const groups = [...leftGroups, ...Array<string>(right === undefined ? 0 : zeros).fill('0'), ...rightGroups];
  groups.forEach((g, i) => {
    const n = parseInt(g, 16);
    out[i * 2] = n >> 8;
    out[i * 2 + 1] = n & 0xff;
  });
  if (tailBytes.length === 4) out.set(tailBytes, 12);
  return out;
}

export function inPrefix(ip: Uint8Array, network: Uint8Array, prefixBits: number): boolean {
  if (ip.length !== network.length) return false;
  const full = Math.floor(prefixBits / 8);
  for (let i = 0; i < full; i++) if (ip[i] !== network[i]) return false;
  const rest = prefixBits % 8;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return ((ip[full] ?? 0) & mask) === ((network[full] ?? 0) & mask);
}

export function sameIp(a: IpAddress, b: IpAddress): boolean {
  return a.version === b.version && inPrefix(a.bytes, b.bytes, a.bytes.length * 8);
}

/** Dotted quad, or the RFC 5952 text form (lower case, longest zero run compressed). */
export function formatIp(ip: IpAddress): string {
  if (ip.version === 4) return Array.from(ip.bytes).join('.');
  const groups = Array.from({ length: 8 }, (_, i) => ((ip.bytes[i * 2] ?? 0) << 8) | (ip.bytes[i * 2 + 1] ?? 0));
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen && j - i >= 2) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLen).join(':')}`;
}

function nibbles(ip: IpAddress): string[] {
  return Array.from(ip.bytes).flatMap((b) => [(b >> 4).toString(16), (b & 0xf).toString(16)]);
}

/** The name whose PTR records hold the address's host names (RFC 1035 3.5, RFC 3596 2.5). */
export function reverseName(ip: IpAddress): string {
  if (ip.version === 4) return `${Array.from(ip.bytes).reverse().join('.')}.in-addr.arpa`;
  return `${nibbles(ip).reverse().join('.')}.ip6.arpa`;
}

/**
 * The %{i} macro value: the dotted quad, or the 32 dot-separated nibbles of an IPv6 address.
 * The nibbles are upper case, as the RFC 7208 test suite expects in explanation text; DNS
 * lookups built from them are case-insensitive either way.
 */
export function dottedIp(ip: IpAddress): string {
  if (ip.version === 4) return formatIp(ip);
  return nibbles(ip).join('.').toUpperCase();
}
