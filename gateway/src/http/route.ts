import type { Express, Request, Response } from 'express';
import { ApiError, defineHttpRoute, mountHttpRoutes, mountRouteErrors, sendPrivateJson, sendProblem, toApiError, TooManyAuthAttempts, type HttpRoute, type RouteReply } from '@dv/runtime';
import type { GatewayContext } from '../context.ts';
import { resourceMetadataUrl } from '../oauth/metadata.ts';
import type { Caller } from '../services/auth.ts';
import { validationError } from './problems.ts';

// The shared route helper (@dv/runtime route/) bound to the verification API: its context, its
// caller (bearer key, plan gating, the per-minute limit), its problem+json errors and its reply
// writer. Route definitions (routes/*.ts) mount here and become the OpenAPI document (openapi.ts).

export const defineRoute = defineHttpRoute<GatewayContext, Caller>();
export type RouteDef = HttpRoute<GatewayContext, Caller>;

/**
 * RFC 6750 §3 / RFC 9728 §5.1: a 401 names the Bearer scheme and where to find the OAuth
 * metadata, which is how MCP connector clients discover that they can sign in (docs/oauth.md).
 */
function withBearerChallenge(err: unknown, base: string, path: string): unknown {
  if (!(err instanceof ApiError) || err.status !== 401) return err;
  const invalid = err.code === 'invalid_api_key' ? ', error="invalid_token"' : '';
  return new ApiError(err.code, err.detail, err.extra, { ...err.headers, 'WWW-Authenticate': `Bearer resource_metadata="${resourceMetadataUrl(base, path)}"${invalid}` });
}

/** The address the per-address limiter counts: req.ip, which honours the `trust proxy` setting. */
function clientAddress(req: Request): string {
  return req.ip ?? req.socket.remoteAddress ?? 'unknown';
}

/** Too many credential lookups from one address: the usual 429 problem, with Retry-After. */
function authAttemptProblem(err: unknown): unknown {
  if (!(err instanceof TooManyAuthAttempts)) return err;
  const s = err.retryAfterSeconds;
  return new ApiError('rate_limited', `Too many authentication attempts from this address (unknown or wrong keys count more); retry in ${s} s.`, {}, { 'Retry-After': String(s) });
}

/** Bearer key, plan and account checks, then one request against the per-minute limit. */
async function authenticate(ctx: GatewayContext, req: Request, def: RouteDef): Promise<Caller> {
  const caller = await ctx.auth.authenticate(req.headers.authorization, clientAddress(req)).catch((err: unknown) => {
    throw withBearerChallenge(authAttemptProblem(err), ctx.config.PUBLIC_BASE_URL, def.path);
  });
  await ctx.limits.request(caller.account._id, caller.account.limits);
  return caller;
}

/** JSON, or a stored problem+json reply (an idempotent replay of an error) sent as it was. */
export function sendReply(res: Response, reply: RouteReply): void {
  if (!reply.headers?.['Content-Type']?.startsWith('application/problem+json')) return sendPrivateJson(res, reply);
  for (const [k, v] of Object.entries(reply.headers)) res.setHeader(k, v);
  res.setHeader('Cache-Control', 'private, no-store');
  res.status(reply.status).send(JSON.stringify(reply.body));
}

/** Mounts every route; other methods on a known path answer 405 with an Allow header. */
export function mountRoutes(app: Express, ctx: GatewayContext, routes: readonly RouteDef[]): void {
  mountHttpRoutes(app, routes, {
    ctx,
    signal: ctx.shutdownSignal,
    authenticate: (req, _res, def) => authenticate(ctx, req, def),
    invalid: (issues) => validationError(issues),
    notJson: () => new ApiError('unsupported_media_type', 'Send the body as application/json.'),
    methodNotAllowed: (method, path, allow) => new ApiError('method_not_allowed', `${method} is not supported on ${path}; use ${allow}.`, {}, { Allow: allow }),
    send: (res, reply) => {
      if (reply.headers?.['Idempotent-Replayed']) ctx.metrics.idempotentReplays.inc();
      sendReply(res, reply);
    },
  });
}

/** The gateway's own 404 and error handler, so every error anywhere is the one problem model. */
export function mountErrorHandlers(app: Express, ctx: GatewayContext): void {
  mountRouteErrors(app, {
    notFound: (req) => new ApiError('not_found', `No route for ${req.method} ${req.path}; see /v1/openapi.json.`),
    render: (err, req, res) => {
      const e = err as { type?: string };
      let apiErr: ApiError;
      if (e?.type === 'entity.too.large' && req.path === '/v1/jobs') apiErr = new ApiError('job_too_large', 'The JSON body is larger than 1 MB; upload the list as a CSV/TXT file (multipart) instead.');
      // A backing server down or slow is a 503/504 with Retry-After, never a 500 (@dv/runtime's classifyFailure).
      else apiErr = toApiError(err, req, ctx.log);
      ctx.metrics.errors.inc({ code: apiErr.code });
      if (apiErr.status === 413) res.setHeader('Connection', 'close');
      res.setHeader('Cache-Control', 'private, no-store');
      sendProblem(res, apiErr);
    },
  });
}
