import type { Express, NextFunction, Request, Response } from 'express';
import { z } from 'zod';
import type { ZodOpenApiOperationObject, ZodOpenApiResponseObject, ZodOpenApiResponsesObject } from 'zod-openapi';
import { ApiError } from '@dv/runtime';
import { ERROR_STATUS, type ErrorCode } from '@dv/contracts';
import type { LookupContext } from '../context.ts';

// A route is data: method, path, the zod schemas that validate its input, its documented responses
// and its handler. The same definition mounts the express route (with validation) and becomes the
// route's OpenAPI operation, so the description can never disagree with what is enforced.

type AnyObject = z.ZodObject;

export interface RouteInput<P extends AnyObject, Q extends AnyObject, B extends z.ZodType> {
  params: z.output<P>;
  query: z.output<Q>;
  body: z.output<B>;
}

export interface RouteDef<P extends AnyObject = AnyObject, Q extends AnyObject = AnyObject, B extends z.ZodType = z.ZodType> {
  method: 'get' | 'post';
  /** OpenAPI form: `/v1/dns/{target}`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  /** Accepts the optional `Authorization: Bearer <free key>`. */
  optionalAuth?: boolean;
  params?: P;
  query?: Q;
  body?: B;
  responses: ZodOpenApiResponsesObject;
  handle: (ctx: LookupContext, input: RouteInput<P, Q, B>, req: Request, res: Response) => Promise<void> | void;
}

/** Keeps the generic parameters of one route while collecting routes of different shapes in one list. */
export function defineRoute<P extends AnyObject = z.ZodObject<Record<string, never>>, Q extends AnyObject = z.ZodObject<Record<string, never>>, B extends z.ZodType = z.ZodUndefined>(def: RouteDef<P, Q, B>): RouteDef {
  return def as unknown as RouteDef;
}

export const problemSchema = z
  .looseObject({
    type: z.string().meta({ example: 'about:blank' }),
    title: z.string(),
    status: z.number().int(),
    code: z.enum(Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]]).meta({ description: 'Machine-readable error code.' }),
    detail: z.unknown().meta({ description: 'Human-readable explanation; says what to do next.' }),
  })
  .meta({ id: 'Problem', description: 'RFC 9457 problem details (application/problem+json).' });

export function problemResponse(description: string, headers?: z.ZodObject): ZodOpenApiResponseObject {
  return { description, content: { 'application/problem+json': { schema: problemSchema } }, ...(headers ? { headers } : {}) };
}

export const retryAfterHeader = z.object({ 'Retry-After': z.number().int().meta({ description: 'Seconds until the limit resets (00:00 UTC for daily allowances).' }) });

export function jsonResponse(description: string, schema: z.ZodType): ZodOpenApiResponseObject {
  return { description, content: { 'application/json': { schema } } };
}

export function toOperation(def: RouteDef): ZodOpenApiOperationObject {
  const requestParams: NonNullable<ZodOpenApiOperationObject['requestParams']> = {};
  if (def.params) requestParams.path = def.params;
  if (def.query) requestParams.query = def.query;
  return {
    operationId: def.operationId,
    summary: def.summary,
    ...(def.description ? { description: def.description } : {}),
    tags: def.tags,
    ...(def.params || def.query ? { requestParams } : {}),
    ...(def.body ? { requestBody: { required: true, content: { 'application/json': { schema: def.body } } } } : {}),
    ...(def.optionalAuth ? { security: [{}, { freeKey: [] }] } : {}),
    responses: def.responses,
  };
}

/** `{target}` → `:target`. */
export function expressPath(path: string): string {
  return path.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1');
}

function parse<S extends z.ZodType>(schema: S | undefined, value: unknown, where: 'path' | 'query' | 'body'): z.output<S> | undefined {
  if (!schema) return undefined;
  const result = schema.safeParse(value ?? (where === 'body' ? undefined : {}));
  if (result.success) return result.data;
  const issues = result.error.issues.map((i) => ({ in: where, field: i.path.join('.') || null, message: i.message }));
  const first = issues[0];
  throw new ApiError('invalid_request', `Invalid ${where}${first?.field ? ` ${first.field}` : ''}: ${first?.message ?? 'bad value'}`, { errors: issues });
}

/**
 * Mounts every route, then answers other methods on a known path with 405 and an Allow header
 * (HEAD is answered wherever GET is, by express).
 */
export function mountRoutes(app: Express, ctx: LookupContext, routes: readonly RouteDef[]): void {
  const byPath = new Map<string, RouteDef[]>();
  for (const r of routes) byPath.set(r.path, [...(byPath.get(r.path) ?? []), r]);
  for (const [path, defs] of byPath) {
    const route = app.route(expressPath(path));
    for (const def of defs) {
      route[def.method](async (req: Request, res: Response, next: NextFunction) => {
        try {
          const input = {
            params: parse(def.params, req.params, 'path'),
            query: parse(def.query, req.query, 'query'),
            body: parse(def.body, req.body, 'body'),
          };
          await def.handle(ctx, input as RouteInput<AnyObject, AnyObject, z.ZodType>, req, res);
        } catch (err) {
          next(err);
        }
      });
    }
    const allow = [...new Set(defs.flatMap((d) => (d.method === 'get' ? ['GET', 'HEAD'] : ['POST'])))].join(', ');
    route.all((req: Request, _res: Response, next: NextFunction) => {
      next(new ApiError('method_not_allowed', `${req.method} is not supported on ${path}; use ${allow}.`, {}, { Allow: allow }));
    });
  }
}

/** Answers JSON that must not be stored by shared caches (it carries per-caller usage). */
export function sendJson(res: Response, status: number, body: unknown): void {
  res.status(status).setHeader('Cache-Control', 'private, no-store');
  res.json(body);
}
