// Reverse names: PTR lookups (in-addr.arpa / ip6.arpa, RFC 1035 3.5 and RFC 3596 2.5) and DNSBL
// queries, which use the same reversed labels under the list's zone (RFC 5782 2.1 and 2.4).
import { isIP } from 'node:net';

/** The 32 hex nibbles of an IPv6 address, most significant first. */
export function ipv6Nibbles(ip: string): string[] {
  let text = ip.toLowerCase();
  // A dotted IPv4 tail (::ffff:192.0.2.1) becomes two hex groups first.
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4?.[1]) {
    const o = v4[1].split('.').map(Number);
    text = `${text.slice(0, -v4[1].length)}${(((o[0] ?? 0) << 8) | (o[1] ?? 0)).toString(16)}:${(((o[2] ?? 0) << 8) | (o[3] ?? 0)).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = tail === undefined || tail === '' ? [] : tail.split(':');
  const fill = tail === undefined ? [] : Array<string>(8 - headGroups.length - tailGroups.length).fill('0');
  return [...headGroups, ...fill, ...tailGroups].flatMap((g) => g.padStart(4, '0').split(''));
}

/** Reversed labels of an address: "4.3.2.1" for 1.2.3.4, 32 nibbles for IPv6. */
export function reversedLabels(ip: string): string {
  if (isIP(ip) === 4) return ip.split('.').reverse().join('.');
  if (isIP(ip) === 6) return ipv6Nibbles(ip).reverse().join('.');
  throw new Error(`not an IP address: ${ip}`);
}

/** The PTR owner name of an address. */
export function reverseName(ip: string): string {
  return `${reversedLabels(ip)}.${isIP(ip) === 4 ? 'in-addr.arpa' : 'ip6.arpa'}`;
}
