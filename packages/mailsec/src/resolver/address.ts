// Comparing IP address text: the same IPv6 address has many spellings.
import { isIP } from 'node:net';

export function canonicalIp(address: string): string {
  if (isIP(address) !== 6) return address;
  // The WHATWG URL serializer prints IPv6 in its RFC 5952 compressed, lower-case form.
  return new URL(`http://[${address}]/`).hostname.slice(1, -1);
}

export function sameAddress(a: string, b: string): boolean {
  return a === b || canonicalIp(a) === canonicalIp(b);
}
