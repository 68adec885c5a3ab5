import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import { readCookie, setCookie } from './cookies.ts';

// CSRF protection for every state-changing page request. Two checks, both required:
// 1. where the request came from: a browser's `Sec-Fetch-Site` (or, without it, `Origin`) must
//    name this origin; a request that names another is refused before anything else;
// 2. a token only this origin's pages carry: an HMAC of the session id (signed in) or of a random
//    anonymous cookie (the sign-in form), compared in constant time. A token from another session,
//    or none, is refused.

export const CSRF_FIELD = '_csrf';
export const CSRF_HEADER = 'x-csrf-token';
const ANON_COOKIE = 'dv_csrf';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export interface CsrfOptions {
  /** At least 32 bytes; the service's own, from its config. */
  secret: Buffer;
  /** The signed-in session's id for this request, when there is one. */
  sessionId(req: Request): string | undefined;
  /** Answers a refused request (the service's 403 page). */
  reject(req: Request, res: Response, why: string): void;
}

function sign(secret: Buffer, what: string): string {
  return createHmac('sha256', secret).update(what).digest('base64url');
}

function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Why a browser request is from elsewhere, or null when it is from this origin. */
export function crossSiteReason(req: Request): string | null {
  const site = req.headers['sec-fetch-site'];
  if (typeof site === 'string') return site === 'same-origin' || site === 'none' ? null : `a ${site} request`;
  const origin = req.headers.origin;
  if (typeof origin === 'string' && origin !== 'null') {
    try {
      if (new URL(origin).host !== req.headers.host) return `a request from ${new URL(origin).host}`;
    } catch {
      return 'a request with a malformed Origin';
    }
  } else if (origin === 'null') return 'a request from an opaque origin';
  return null;
}

/** The token the page's forms carry; sets the anonymous cookie when there is no session. */
export function csrfToken(req: Request, res: Response, opts: Pick<CsrfOptions, 'secret' | 'sessionId'>): string {
  const sid = opts.sessionId(req);
  if (sid) return sign(opts.secret, `session:${sid}`);
  let anon = readCookie(req, ANON_COOKIE) ?? (res.locals.dvAnonCsrf as string | undefined);
  if (!anon || anon.length > 64) {
    anon = randomBytes(24).toString('base64url');
    setCookie(req, res, ANON_COOKIE, anon);
    res.locals.dvAnonCsrf = anon;
  }
  return sign(opts.secret, `anon:${anon}`);
}

function sentToken(req: Request): string | undefined {
  const fromBody = (req.body as Record<string, unknown> | undefined)?.[CSRF_FIELD];
  if (typeof fromBody === 'string') return fromBody;
  const fromHeader = req.headers[CSRF_HEADER];
  if (typeof fromHeader === 'string') return fromHeader;
  // A multipart body is streamed to its handler, not parsed before this check: an upload form
  // carries the token in its action URL (multipartAction) instead.
  const fromQuery = req.is('multipart/form-data') ? req.query[CSRF_FIELD] : undefined;
  return typeof fromQuery === 'string' ? fromQuery : undefined;
}

/** An upload form's action: the token rides in the URL, since the body is not parsed before the check. */
export function multipartAction(action: string, token: string): string {
  return `${action}${action.includes('?') ? '&' : '?'}${CSRF_FIELD}=${encodeURIComponent(token)}`;
}

function expectedTokens(req: Request, opts: CsrfOptions): string[] {
  const out: string[] = [];
  const sid = opts.sessionId(req);
  if (sid) out.push(sign(opts.secret, `session:${sid}`));
  const anon = readCookie(req, ANON_COOKIE);
  if (anon && anon.length <= 64) out.push(sign(opts.secret, `anon:${anon}`));
  return out;
}

/** Mount after the body parser and the session lookup, before any page route that changes state. */
export function csrfProtection(opts: CsrfOptions): RequestHandler {
  if (opts.secret.length < 32) throw new Error('the CSRF secret must be at least 32 bytes');
  return (req, res, next) => {
    res.locals.csrfToken = () => csrfToken(req, res, opts);
    if (SAFE_METHODS.has(req.method)) return next();
    const elsewhere = crossSiteReason(req);
    if (elsewhere) return opts.reject(req, res, `${elsewhere} cannot change anything here`);
    const sent = sentToken(req);
    if (!sent) return opts.reject(req, res, 'the form was sent without its security token');
    if (!expectedTokens(req, opts).some((t) => sameToken(t, sent))) return opts.reject(req, res, 'the form\'s security token does not belong to this session (it may have ended)');
    next();
  };
}
