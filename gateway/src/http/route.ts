import type { Express, NextFunction, Request, Response } from 'express';
import type { z } from 'zod';
import type { ZodOpenApiOperationObject, ZodOpenApiResponsesObject } from 'zod-openapi';
import { ApiError, problemBody, sendProblem, toApiError, TooManyAuthAttempts } from '@dv/runtime';
import type { GatewayContext } from '../context.ts';
import { resourceMetadataUrl } from '../oauth/metadata.ts';
import type { Caller } from '../services/auth.ts';
import type { Reply } from '../services/idempotency.ts';
import { IDEMPOTENCY_KEY_PATTERN } from '../services/idempotency.ts';
import { AUTH_ERRORS, problemResponse, retryAfterHeader, toIssues, validationError } from './problems.ts';
import { idempotencyHeader } from './schemas.ts';

// A route is data: method, path, the zod schemas that validate its input, its documented responses
// and its handler. The same definition mounts the express route (auth, per-minute limit,
// validation) and becomes its OpenAPI operation, so the description cannot drift from what runs.

type AnyObject = z.ZodObject;

export interface RouteInput<P extends AnyObject, Q extends AnyObject, B extends z.ZodType> {
  params: z.output<P>;
  query: z.output<Q>;
  body: z.output<B>;
  /** Validated Idempotency-Key header (write routes). */
  idempotencyKey: string | undefined;
}

export interface HandlerArgs<P extends AnyObject, Q extends AnyObject, B extends z.ZodType> {
  ctx: GatewayContext;
  input: RouteInput<P, Q, B>;
  /** Present on authenticated routes. */
  caller: Caller;
  req: Request;
  res: Response;
  /** Aborted when the client goes away or the process drains. */
  signal: AbortSignal;
}

export interface RouteDef<P extends AnyObject = AnyObject, Q extends AnyObject = AnyObject, B extends z.ZodType = z.ZodType> {
  method: 'get' | 'post' | 'delete';
  /** OpenAPI form: `/v1/jobs/{job_id}`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  /** Default true: bearer key, plan gating and the per-minute limit. */
  auth?: boolean;
  /** Takes an Idempotency-Key (every write). */
  idempotent?: boolean;
  params?: P;
  query?: Q;
  body?: B;
  /** The handler reads the body itself (multipart); `body` then only documents the JSON form. */
  rawBody?: boolean;
  /** Extra request body content types for the OpenAPI document. */
  requestBodyExtra?: Record<string, { schema: z.ZodType }>;
  responses: ZodOpenApiResponsesObject;
  /** Return a Reply (sent as JSON), or write to `res` yourself and return nothing (streams). */
  handle: (args: HandlerArgs<P, Q, B>) => Promise<Reply | void> | Reply | void;
}

export function defineRoute<P extends AnyObject = z.ZodObject<Record<string, never>>, Q extends AnyObject = z.ZodObject<Record<string, never>>, B extends z.ZodType = z.ZodUndefined>(def: RouteDef<P, Q, B>): RouteDef {
  return def as unknown as RouteDef;
}

export function toOperation(def: RouteDef): ZodOpenApiOperationObject {
  const requestParams: NonNullable<ZodOpenApiOperationObject['requestParams']> = {};
  if (def.params) requestParams.path = def.params;
  if (def.query) requestParams.query = def.query;
  if (def.idempotent) requestParams.header = idempotencyHeader;
  const content: Record<string, { schema: z.ZodType }> = { ...(def.body ? { 'application/json': { schema: def.body } } : {}), ...def.requestBodyExtra };
  const auth = def.auth !== false;
  return {
    operationId: def.operationId,
    summary: def.summary,
    ...(def.description ? { description: def.description } : {}),
    tags: def.tags,
    ...(Object.keys(requestParams).length > 0 ? { requestParams } : {}),
    ...(Object.keys(content).length > 0 ? { requestBody: { required: true, content } } : {}),
    security: auth ? [{ bearerKey: [] }] : [],
    responses: {
      ...(auth ? AUTH_ERRORS : {}),
      ...(def.method === 'post' ? { '400': problemResponse('invalid_request: the body is not valid JSON.'), '415': problemResponse('unsupported_media_type.') } : {}),
      '503': problemResponse('service_unavailable (or 504 timeout): a backing service is down or slow; retry with backoff.', retryAfterHeader),
      ...def.responses,
    },
  };
}

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
export function clientAddress(req: Request): string {
  return req.ip ?? req.socket.remoteAddress ?? 'unknown';
}

/**
 * Meters one credential attempt from the request's address (the OAuth endpoints, which look keys
 * and codes up themselves). Over the limit: sets Retry-After and returns the seconds to wait, for
 * the caller to answer in its own surface's shape; else null.
 */
export async function meterAuthAttempt(ctx: GatewayContext, req: Request, res: Response): Promise<number | null> {
  try {
    await ctx.auth.attempts.attempt(clientAddress(req));
    return null;
  } catch (err) {
    if (!(err instanceof TooManyAuthAttempts)) throw err;
    res.setHeader('Retry-After', String(err.retryAfterSeconds));
    return err.retryAfterSeconds;
  }
}

/** Too many credential lookups from one address: the usual 429 problem, with Retry-After. */
function authAttemptProblem(err: unknown): unknown {
  if (!(err instanceof TooManyAuthAttempts)) return err;
  const s = err.retryAfterSeconds;
  return new ApiError('rate_limited', `Too many authentication attempts from this address (unknown or wrong keys count more); retry in ${s} s.`, {}, { 'Retry-After': String(s) });
}

export function expressPath(path: string): string {
  return path.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1');
}

function parse<S extends z.ZodType>(schema: S | undefined, value: unknown, where: 'path' | 'query' | 'body'): z.output<S> | undefined {
  if (!schema) return undefined;
  const input = value ?? (where === 'body' ? undefined : {});
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw validationError(toIssues(where, result.error, input));
}

export function sendReply(res: Response, reply: Reply): void {
  for (const [k, v] of Object.entries(reply.headers ?? {})) res.setHeader(k, v);
  res.setHeader('Cache-Control', 'private, no-store');
  res.status(reply.status);
  if (reply.headers?.['Content-Type']?.startsWith('application/problem+json')) res.send(JSON.stringify(reply.body));
  else res.json(reply.body);
}

/** Mounts every route; other methods on a known path answer 405 with an Allow header. */
export function mountRoutes(app: Express, ctx: GatewayContext, routes: readonly RouteDef[]): void {
  const byPath = new Map<string, RouteDef[]>();
  for (const r of routes) byPath.set(r.path, [...(byPath.get(r.path) ?? []), r]);
  for (const [path, defs] of byPath) {
    const route = app.route(expressPath(path));
    for (const def of defs) {
      route[def.method](async (req: Request, res: Response, next: NextFunction) => {
        const abort = new AbortController();
        const onClose = () => {
          if (!res.writableFinished) abort.abort();
        };
        res.on('close', onClose);
        const onShutdown = () => abort.abort();
        ctx.shutdownSignal.addEventListener('abort', onShutdown, { once: true });
        try {
          let caller: Caller | undefined;
          if (def.auth !== false) {
            caller = await ctx.auth.authenticate(req.headers.authorization, clientAddress(req)).catch((err: unknown) => {
              throw withBearerChallenge(authAttemptProblem(err), ctx.config.PUBLIC_BASE_URL, def.path);
            });
            await ctx.limits.request(caller.account._id, caller.account.limits);
          }
          if (def.method === 'post' && !def.rawBody && !req.is('application/json') && !req.is('application/*+json')) {
            throw new ApiError('unsupported_media_type', 'Send the body as application/json.');
          }
          let idempotencyKey: string | undefined;
          if (def.idempotent) {
            const raw = req.headers['idempotency-key'];
            if (raw !== undefined) {
              if (typeof raw !== 'string' || !IDEMPOTENCY_KEY_PATTERN.test(raw)) {
                throw validationError([{ loc: ['header', 'Idempotency-Key'], msg: 'must be 1-255 visible ASCII characters (a fresh UUID is best)', type: 'invalid_format', input: typeof raw === 'string' ? raw.slice(0, 300) : raw }]);
              }
              idempotencyKey = raw;
            }
          }
          const input = {
            params: parse(def.params, req.params, 'path'),
            query: parse(def.query, req.query, 'query'),
            body: def.rawBody ? undefined : parse(def.body, req.body, 'body'),
            idempotencyKey,
          };
          const reply = await def.handle({ ctx, input: input as RouteInput<AnyObject, AnyObject, z.ZodType>, caller: caller as Caller, req, res, signal: abort.signal });
          if (reply && !res.headersSent) {
            if (reply.headers?.['Idempotent-Replayed']) ctx.metrics.idempotentReplays.inc();
            sendReply(res, reply);
          }
        } catch (err) {
          next(err);
        } finally {
          res.off('close', onClose);
          ctx.shutdownSignal.removeEventListener('abort', onShutdown);
        }
      });
    }
    const allow = [...new Set(defs.flatMap((d) => (d.method === 'get' ? ['GET', 'HEAD'] : [d.method.toUpperCase()])))].join(', ');
    route.all((req: Request, _res: Response, next: NextFunction) => {
      next(new ApiError('method_not_allowed', `${req.method} is not supported on ${path}; use ${allow}.`, {}, { Allow: allow }));
    });
  }
}

/** The gateway's own 404 and error handler, so every error anywhere is the one problem model. */
export function mountErrorHandlers(app: Express, ctx: GatewayContext): void {
  app.use((req: Request, _res: Response, next: NextFunction) => {
    next(new ApiError('not_found', `No route for ${req.method} ${req.path}; see /v1/openapi.json.`));
  });
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const e = err as { type?: string };
    let apiErr: ApiError;
    if (e?.type === 'entity.too.large' && req.path === '/v1/jobs') apiErr = new ApiError('job_too_large', 'The JSON body is larger than 1 MB; upload the list as a CSV/TXT file (multipart) instead.');
    else apiErr = dependencyError(err, ctx) ?? toApiError(err, req, ctx.log);
    ctx.metrics.errors.inc({ code: apiErr.code });
    if (apiErr.status === 413) res.setHeader('Connection', 'close');
    res.setHeader('Cache-Control', 'private, no-store');
    sendProblem(res, apiErr);
  });
}

// A server we depend on is down or slow: a temporary condition (spec: 502/503/504, retry with
// backoff), never a 500.
const UNAVAILABLE = new Set(['MongoServerSelectionError', 'MongoNetworkError', 'MongoNetworkTimeoutError', 'MongoNotConnectedError', 'MongoTopologyClosedError', 'MongoPoolClearedError', 'MaxRetriesPerRequestError', 'ClosedConnectionError', 'DrainingConnectionError', 'ConnectionError', 'NoRespondersError', 'JetStreamPublishError']);

function dependencyError(err: unknown, ctx: GatewayContext): ApiError | null {
  const e = err as { name?: string; message?: string };
  if (!e || typeof e !== 'object') return null;
  const redisOffline = typeof e.message === 'string' && /enableOfflineQueue|Connection is closed/.test(e.message);
  if (e.name === 'TimeoutError' || e.name === 'MongoOperationTimeoutError') {
    ctx.log.warn({ err: e.message }, 'dependency timeout');
    return new ApiError('timeout', 'A backing service did not answer in time; retry with backoff.', {}, { 'Retry-After': '2' });
  }
  if ((e.name && UNAVAILABLE.has(e.name)) || redisOffline) {
    ctx.log.warn({ err: e.message, name: e.name }, 'dependency unavailable');
    return new ApiError('service_unavailable', 'A backing service is temporarily unavailable; retry with backoff.', {}, { 'Retry-After': '2' });
  }
  return null;
}

export { problemBody };
