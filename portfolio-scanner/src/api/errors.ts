import { z } from 'zod';
import type { ZodOpenApiResponseObject } from 'zod-openapi';

// The portfolio API's one closed list of error codes, each with its HTTP status
// (docs/portfolio-scanner.md "API", Errors). Routes throw PortfolioError by code; the status always
// comes from here, and every error is rendered in the spec's envelope (envelope.ts).
export const PORTFOLIO_ERROR_STATUS = {
  /** Malformed JSON, a body that is not JSON. */
  invalid_request: 400,
  /** Path, query or body values the route's schema refuses (the detail names the field). */
  validation_error: 400,
  /** No Authorization header, or not `Bearer <key>` (spec). */
  authentication_required: 401,
  /** A key that is wrong, revoked, expired or of another service. */
  invalid_api_key: 401,
  /** The account's plan has no portfolio API access. */
  api_access_not_included: 403,
  account_inactive: 403,
  /** Plain HTTP over a network: the API answers HTTPS only (TLS here or at a trusted proxy). */
  https_required: 403,
  /** An export file link whose signature is wrong or whose expiry has passed (get a fresh one from the exports list). */
  invalid_signature: 403,
  /** An unknown path, or an id the account does not hold (another account's ids too). */
  not_found: 404,
  method_not_allowed: 405,
  /** Creating a fourth active API key. */
  key_limit_reached: 409,
  /** Queueing an export while the account already has the most exports queued or in progress. */
  too_many_exports: 409,
  /** Queueing an export past the plan's stored exports, stored bytes or rows per export (the detail names which). */
  export_limit_reached: 409,
  /** Adding domains past the plan's domains per account. */
  domain_limit_reached: 409,
  payload_too_large: 413,
  /** Per-minute limit of the key or daily quota of the account used up (spec). */
  rate_limit_exceeded: 429,
  internal_error: 500,
  /** MongoDB, Redis or NATS is unreachable; retry with backoff. */
  service_unavailable: 503,
} as const;

export type PortfolioErrorCode = keyof typeof PORTFOLIO_ERROR_STATUS;
export const PORTFOLIO_ERROR_CODES = Object.keys(PORTFOLIO_ERROR_STATUS) as [PortfolioErrorCode, ...PortfolioErrorCode[]];

export class PortfolioError extends Error {
  readonly code: PortfolioErrorCode;
  readonly status: number;
  readonly headers: Record<string, string>;
  constructor(code: PortfolioErrorCode, detail: string, headers: Record<string, string> = {}) {
    super(detail);
    this.name = 'PortfolioError';
    this.code = code;
    this.status = PORTFOLIO_ERROR_STATUS[code];
    this.headers = headers;
  }
}

export const errorEnvelopeSchema = z
  .object({
    status: z.literal('error'),
    data: z.null(),
    meta: z.object({}),
    errors: z.array(z.object({ code: z.enum(PORTFOLIO_ERROR_CODES).meta({ description: 'Machine-readable code (closed list).' }), detail: z.string().meta({ description: 'What went wrong and what to do.' }) })).min(1),
  })
  .meta({ id: 'ErrorEnvelope', description: 'Every error: the spec\'s envelope with one or more {code, detail}.' });

export function errorResponse(description: string, headers?: z.ZodObject): ZodOpenApiResponseObject {
  return { description, content: { 'application/json': { schema: errorEnvelopeSchema } }, ...(headers ? { headers } : {}) };
}
