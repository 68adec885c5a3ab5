import type { Response } from 'express';
import { ERROR_STATUS, ERROR_TITLES, type ErrorCode } from '@dv/contracts';

/**
 * The one error model of the verification and lookup APIs: RFC 9457 problem details with a
 * machine-readable `code` and a human `detail`. Throw an ApiError anywhere in a handler; the
 * error middleware renders it.
 */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly detail: unknown;
  readonly extra: Record<string, unknown>;
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, detail: unknown, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
    super(typeof detail === 'string' ? detail : code);
    this.name = 'ApiError';
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.detail = detail;
    this.extra = extra;
    this.headers = headers;
  }
}

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  code: ErrorCode;
  detail: unknown;
  [extra: string]: unknown;
}

export function problemBody(err: ApiError): ProblemBody {
  return { type: 'about:blank', title: ERROR_TITLES[err.status] ?? 'Error', status: err.status, code: err.code, detail: err.detail, ...err.extra };
}

export function sendProblem(res: Response, err: ApiError): void {
  for (const [name, value] of Object.entries(err.headers)) res.setHeader(name, value);
  res.status(err.status).type('application/problem+json').send(JSON.stringify(problemBody(err)));
}
