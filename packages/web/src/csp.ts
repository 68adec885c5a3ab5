import type { RequestHandler } from 'express';

// Security headers for every page. Scripts and styles come only from this origin's hashed assets:
// no inline script, no inline style, no `unsafe-inline`, nothing from another origin, and the page
// cannot be framed. Pages set these; the JSON API keeps its own headers.

export interface CspOptions {
  /** Extra form targets (an OAuth redirect URI a consent page posts back to). */
  formActions?: readonly string[];
}

export function contentSecurityPolicy(opts: CspOptions = {}): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "manifest-src 'self'",
    `form-action 'self'${(opts.formActions ?? []).map((a) => ` ${a}`).join('')}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

export const PAGE_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': contentSecurityPolicy(),
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Permissions-Policy': 'camera=(), microphone=(), geolocation=(), payment=(), usb=()',
  'X-Frame-Options': 'DENY',
};

/** Sets the page headers on every response of the router it is mounted on; pages are never cached. */
export function pageSecurityHeaders(): RequestHandler {
  return (_req, res, next) => {
    for (const [name, value] of Object.entries(PAGE_SECURITY_HEADERS)) res.setHeader(name, value);
    res.setHeader('Cache-Control', 'no-store');
    next();
  };
}
