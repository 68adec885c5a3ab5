// One spelling per IP address, for caches, quotas and log lines.
//
// Contract: IPv4 text is returned as given; IPv4-mapped IPv6 in dotted form (`::ffff:1.2.3.4`)
// becomes the IPv4 address; any other IPv6 becomes its canonical RFC 5952 form (lower case,
// compressed). The input must already be an address `isIP` accepts.
import { isIP } from 'node:net';

export function normaliseIp(ip: string, family: number = isIP(ip)): string {
  if (family === 4) return ip;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped?.[1] && isIP(mapped[1]) === 4) return mapped[1];
  // The URL parser prints IPv6 in its canonical compressed lower-case form (RFC 5952).
  return new URL(`http://[${ip}]/`).hostname.slice(1, -1);
}
