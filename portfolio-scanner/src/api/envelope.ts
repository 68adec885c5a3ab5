import type { Request, Response } from 'express';
import { z } from 'zod';
import { classifyFailure, FAILURE_DETAIL, FAILURE_RETRY_AFTER_S, sendPrivateJson, writeJson, type RouteReply, type ValidationIssue } from '@dv/runtime';
import type { Logger } from '@dv/runtime';
import { PortfolioError } from './errors.ts';

// The spec's envelope on every response: `{status: "ok", data, meta, errors: []}` or
// `{status: "error", data: null, meta: {}, errors: [{code, detail}]}`.

export function ok(data: unknown, meta: Record<string, unknown> = {}, status = 200): RouteReply {
  return { status, body: { status: 'ok', data, meta, errors: [] } };
}

export function okSchema(id: string, data: z.ZodType, meta: z.ZodType = z.object({})): z.ZodType {
  return z.object({ status: z.literal('ok'), data, meta, errors: z.array(z.never()).max(0) }).meta({ id });
}

/** Replies are built in the envelope by `ok`, so writing one is the shared no-store JSON writer. */
export const sendOk = sendPrivateJson;

export function invalidInput(issues: ValidationIssue[]): PortfolioError {
  const detail = issues
    .slice(0, 5)
    .map((i) => `${i.loc.join('.')}: ${i.msg}`)
    .join('; ');
  return new PortfolioError('validation_error', detail || 'Invalid input.');
}


/** Anything thrown → a PortfolioError; express's body-parser errors keep their meaning. */
export function toPortfolioError(err: unknown, req: Request, log: Logger): PortfolioError {
  if (err instanceof PortfolioError) return err;
  const e = err as { type?: string; status?: number; name?: string; message?: string };
  if (e?.type === 'entity.parse.failed') return new PortfolioError('invalid_request', 'The request body is not valid JSON.');
  if (e?.type === 'entity.too.large') return new PortfolioError('payload_too_large', 'The request body is larger than 1 MB; send at most 500 domains per request.');
  if (e?.type === 'charset.unsupported' || e?.type === 'encoding.unsupported') return new PortfolioError('invalid_request', 'Send the body as UTF-8 JSON.');
  if (typeof e?.status === 'number' && e.status >= 400 && e.status < 500) return new PortfolioError('invalid_request', e.message ?? 'Bad request.');
  // A server we depend on is down or slow: temporary (503 with Retry-After; this API's closed code
  // list has no 504, the detail says which), never a 500; the one classification of @dv/runtime,
  // shared with MCP and the other services.
  const failure = classifyFailure(err);
  if (failure !== 'other') {
    log.warn({ err: e?.message, name: e?.name }, `dependency ${failure}`);
    return new PortfolioError('service_unavailable', FAILURE_DETAIL[failure], { 'Retry-After': String(FAILURE_RETRY_AFTER_S) });
  }
  log.error({ err, method: req.method, path: req.path }, 'unhandled error');
  return new PortfolioError('internal_error', 'An internal error occurred; retry with backoff.');
}

export function sendError(res: Response, err: PortfolioError): void {
  for (const [k, v] of Object.entries(err.headers)) res.setHeader(k, v);
  if (err.status === 413) res.setHeader('Connection', 'close');
  res.setHeader('Cache-Control', 'private, no-store');
  writeJson(res, err.status, { status: 'error', data: null, meta: {}, errors: [{ code: err.code, detail: err.message }] });
}
