import type { Request, Response } from 'express';
import type { z } from 'zod';
import type { ZodOpenApiResponsesObject } from 'zod-openapi';

// A route is data: method, path, the zod schemas that validate its input, its documented
// responses and its handler. One definition mounts the express route (mount.ts) and becomes its
// OpenAPI operation (openapi.ts), so the description cannot drift from what runs. Nothing here
// knows an API's error model, caller or context: each API passes those in (MountOptions), which
// is what lets the verification, lookup and portfolio APIs share it.

type AnyObject = z.ZodObject;

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface RouteInput<P extends AnyObject, Q extends AnyObject, B extends z.ZodType, H extends AnyObject = AnyObject> {
  params: z.output<P>;
  query: z.output<Q>;
  body: z.output<B>;
  /** The route's `headers`, keyed by the names its schema spells (express lower-cases them). */
  headers: z.output<H>;
}

export interface RouteArgs<Ctx, Caller, P extends AnyObject, Q extends AnyObject, B extends z.ZodType, H extends AnyObject = AnyObject> {
  ctx: Ctx;
  input: RouteInput<P, Q, B, H>;
  /** What `MountOptions.authenticate` resolved; undefined on routes with `auth: false`. */
  caller: Caller;
  req: Request;
  res: Response;
  /** Aborted when the client goes away or the process drains (`MountOptions.signal`). */
  signal: AbortSignal;
}

/** A reply the API's `send` renders (its success shape); a handler may write `res` itself instead. */
export interface RouteReply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/**
 * true (default): `MountOptions.authenticate` runs before validation and the operation carries the
 * API's security requirement; 'optional': it runs too (the API decides what no credential means)
 * and the document says the credential may be left out; false: neither.
 */
export type RouteAuth = boolean | 'optional';

export interface HttpRoute<Ctx, Caller, P extends AnyObject = AnyObject, Q extends AnyObject = AnyObject, B extends z.ZodType = z.ZodType, H extends AnyObject = AnyObject> {
  method: HttpMethod;
  /** OpenAPI form: `/api/v1/domains/{id}/`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags: readonly string[];
  auth?: RouteAuth;
  params?: P;
  query?: Q;
  body?: B;
  /** Request headers the route reads, validated like the rest of the input and documented as header parameters. */
  headers?: H;
  /** The handler reads the body itself (multipart, streams): no JSON check, no parse; `body` then documents the JSON form. */
  rawBody?: boolean;
  /** More request body media types for the document, beside `body`'s application/json. */
  requestBodyExtra?: Record<string, { schema: z.ZodType }>;
  responses: ZodOpenApiResponsesObject;
  handle: (args: RouteArgs<Ctx, Caller, P, Q, B, H>) => Promise<RouteReply | void> | RouteReply | void;
}

type Empty = z.ZodObject<Record<string, never>>;

/** Keeps one route's generic parameters while routes of different shapes share one list. */
export function defineHttpRoute<Ctx, Caller>() {
  return <P extends AnyObject = Empty, Q extends AnyObject = Empty, B extends z.ZodType = z.ZodUndefined, H extends AnyObject = Empty>(def: HttpRoute<Ctx, Caller, P, Q, B, H>): HttpRoute<Ctx, Caller> =>
    def as unknown as HttpRoute<Ctx, Caller>;
}

/** `{id}` → `:id`. */
export function expressPath(path: string): string {
  return path.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1');
}
