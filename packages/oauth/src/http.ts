import express, { type Request, type RequestHandler, type Response } from 'express';
import { InvalidRequestError, OAuthError, ServerError, TemporarilyUnavailableError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { Logger } from '@dv/runtime';

// The OAuth endpoints answer in OAuth's own error shape (RFC 6749 §5.2: {error, error_description}),
// which every OAuth client parses, not problem+json. This wrapper is their one error model.

export const formBody: RequestHandler = express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 50 });

function statusOf(err: OAuthError): number {
  if (err instanceof ServerError) return 500;
  if (err instanceof TemporarilyUnavailableError) return 503;
  switch (err.errorCode) {
    case 'invalid_client':
      return 401;
    case 'too_many_requests':
      return 429;
    default:
      return 400;
  }
}

export function sendOAuthError(res: Response, err: OAuthError): void {
  res.setHeader('Cache-Control', 'no-store');
  if (err.errorCode === 'invalid_client') res.setHeader('WWW-Authenticate', 'Basic realm="oauth"');
  res.status(statusOf(err)).json(err.toResponseObject());
}

/** Runs an OAuth endpoint: OAuth errors as RFC 6749 JSON, anything else logged and a server_error. Never throws. */
export function oauthHandler(log: Logger, fn: (req: Request, res: Response) => Promise<void>): (args: { req: Request; res: Response }) => Promise<void> {
  return async ({ req, res }) => {
    try {
      await fn(req, res);
    } catch (err) {
      if (res.headersSent) return void res.destroy();
      if (err instanceof OAuthError) return sendOAuthError(res, err);
      log.error({ err: (err as Error)?.message, path: req.path }, 'oauth endpoint failed');
      sendOAuthError(res, new TemporarilyUnavailableError('The authorization server could not complete the request; try again.'));
    }
  };
}

/** The request body as a plain record (form or JSON), never undefined. */
export function bodyOf(req: Request): Record<string, unknown> {
  const b: unknown = req.body;
  return b && typeof b === 'object' && !Array.isArray(b) ? (b as Record<string, unknown>) : {};
}

/** One text field of an OAuth request body (1-2,000 characters), or invalid_request. */
export function formField(body: Record<string, unknown>, name: string, required: true): string;
export function formField(body: Record<string, unknown>, name: string, required?: false): string | undefined;
export function formField(body: Record<string, unknown>, name: string, required = false): string | undefined {
  const v = body[name];
  if (v === undefined && !required) return undefined;
  if (typeof v !== 'string' || v.length === 0 || v.length > 2_000) throw new InvalidRequestError(`${name} is ${v === undefined ? 'required' : 'invalid'}.`);
  return v;
}

/** The address the per-address limiter counts: req.ip, which honours the `trust proxy` setting. */
export function clientAddress(req: Request): string {
  return req.ip ?? req.socket.remoteAddress ?? 'unknown';
}
