import type { Request, Response } from 'express';
import { parse } from 'cookie';

// The browser's cookies for pages. On HTTPS (or behind a proxy that says so) every cookie is
// `__Host-`: Secure, Path=/, no Domain, so no other host or plain-http page can set or read it.
// On plain http on a loopback address (a laptop running `npm start`) a browser refuses Secure
// cookies from some hosts, so the same cookie goes without the prefix and Secure there, and only there.

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/** True when cookies must be Secure: anything but plain http on a loopback host. */
export function secureCookies(req: Request): boolean {
  return req.secure || !LOOPBACK_HOSTS.has(req.hostname);
}

export function cookieName(req: Request, base: string): string {
  return secureCookies(req) ? `__Host-${base}` : base;
}

export function readCookie(req: Request, base: string): string | undefined {
  const header = req.headers.cookie;
  if (!header || header.length > 8_192) return undefined;
  return parse(header)[cookieName(req, base)];
}

export interface CookieLife {
  /** Omitted: a browser-session cookie (gone when the browser closes). */
  maxAgeMs?: number;
}

export function setCookie(req: Request, res: Response, base: string, value: string, life: CookieLife = {}): void {
  res.cookie(cookieName(req, base), value, { httpOnly: true, sameSite: 'lax', secure: secureCookies(req), path: '/', ...(life.maxAgeMs !== undefined ? { maxAge: life.maxAgeMs } : {}) });
}

export function clearCookie(req: Request, res: Response, base: string): void {
  res.clearCookie(cookieName(req, base), { httpOnly: true, sameSite: 'lax', secure: secureCookies(req), path: '/' });
}
