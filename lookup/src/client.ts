import { isIP } from 'node:net';
import type { Request } from 'express';
import { normaliseIp } from './target.ts';

/**
 * The client's address: `req.ip`, which express derives from `X-Forwarded-For` only through the
 * proxies listed in TRUSTED_PROXIES (app setting `trust proxy`), else the socket address.
 */
export function clientIp(req: Request): string {
  const ip = req.ip ?? req.socket.remoteAddress ?? '0.0.0.0';
  return isIP(ip) ? normaliseIp(ip) : '0.0.0.0';
}

/**
 * What the anonymous quota is counted against. An IPv6 client usually holds a whole /64 and can
 * pick any address in it, so IPv6 counts per /64; IPv4 per address.
 */
export function quotaSubject(ip: string): string {
  if (isIP(ip) !== 6) return ip;
  return `${expandIpv6(ip).slice(0, 4).join(':')}::/64`;
}

function expandIpv6(ip: string): string[] {
  let text = ip.toLowerCase();
  // An embedded IPv4 tail (::1.2.3.4) becomes its two hextets.
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = text.slice(0, v4.index) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const fill = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...fill, ...right].map((h) => h.replace(/^0+(?=.)/, ''));
}

export type BearerKey = { kind: 'none' } | { kind: 'key'; key: string } | { kind: 'malformed' };

/** `Authorization: Bearer <key>`; anything else in the header is a client error, never silently anonymous. */
export function bearerKey(req: Request): BearerKey {
  const header = req.headers.authorization;
  if (header === undefined || header.trim() === '') return { kind: 'none' };
  const match = /^Bearer[ ]+([A-Za-z0-9_-]{1,200})[ ]*$/i.exec(header);
  return match?.[1] ? { kind: 'key', key: match[1] } : { kind: 'malformed' };
}
