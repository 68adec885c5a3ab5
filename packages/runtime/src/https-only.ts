import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { isLoopbackHost } from './production.ts';

// HTTPS only (docs/portfolio-scanner.md "HTTPS only"): a request is served when it arrived over TLS
// (directly, or at a proxy in TRUSTED_PROXIES that says so in X-Forwarded-Proto: express's
// req.secure believes the header only from those peers), or when it came straight from this
// machine (loopback peer, no forwarding headers: local use, never crossed a network). Anything
// else is refused in the API's own error model before any route or key lookup runs.

/** What decides: everything read from the request, nothing else. */
export interface TransportFacts {
  /** req.secure: TLS here, or X-Forwarded-Proto https from a trusted proxy. */
  secure: boolean;
  /** The socket peer is a loopback address. */
  peerLoopback: boolean;
  /** The request carries X-Forwarded-For, X-Forwarded-Proto or Forwarded (it came through a proxy). */
  forwarded: boolean;
}

/** `https`: serve with HSTS; `local`: serve (direct loopback, plain HTTP); `refuse`: plain HTTP over a network. */
export type TransportVerdict = 'https' | 'local' | 'refuse';

export function transportVerdict(f: TransportFacts): TransportVerdict {
  if (f.secure) return 'https';
  // A proxy on this machine that is not trusted still forwards other machines' requests: only a
  // request without forwarding headers is this machine's own.
  if (f.peerLoopback && !f.forwarded) return 'local';
  return 'refuse';
}

export function transportFacts(req: Request): TransportFacts {
  const h = req.headers;
  return {
    secure: req.secure,
    peerLoopback: isLoopbackHost(req.socket.remoteAddress ?? ''),
    forwarded: h['x-forwarded-for'] !== undefined || h['x-forwarded-proto'] !== undefined || h.forwarded !== undefined,
  };
}

export interface HttpsOnlyOptions {
  /** Strict-Transport-Security max-age on HTTPS responses. */
  hstsMaxAgeS: number;
  /** The API's error for a refused request (rendered by its error handler). */
  refuse: (req: Request) => unknown;
}

/** Middleware: refuses plain HTTP (but local use) and sets HSTS on HTTPS responses. Mount before the API's routes. */
export function httpsOnly(opts: HttpsOnlyOptions): RequestHandler {
  const hsts = `max-age=${opts.hstsMaxAgeS}`;
  return (req: Request, res: Response, next: NextFunction) => {
    const verdict = transportVerdict(transportFacts(req));
    if (verdict === 'https') res.setHeader('Strict-Transport-Security', hsts);
    if (verdict === 'refuse') next(opts.refuse(req));
    else next();
  };
}
