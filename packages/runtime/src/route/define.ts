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

export interface RouteInput<P extends AnyObject, Q extends AnyObject, B extends z.ZodType> {
  params: z.output<P>;
  query: z.output<Q>;
  body: z.output<B>;
}

export interface RouteArgs<Ctx, Caller, P extends AnyObject, Q extends AnyObject, B extends z.ZodType> {
  ctx: Ctx;
  input: RouteInput<P, Q, B>;
  /** What `MountOptions.authenticate` resolved; undefined on routes with `auth: false`. */
  caller: Caller;
  req: Request;
  res: Response;
}

/** A reply the API's `send` renders (its success shape); a handler may write `res` itself instead. */
export interface RouteReply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface HttpRoute<Ctx, Caller, P extends AnyObject = AnyObject, Q extends AnyObject = AnyObject, B extends z.ZodType = z.ZodType> {
  method: HttpMethod;
  /** OpenAPI form: `/api/v1/domains/{id}/`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  /** Default true: `MountOptions.authenticate` runs before validation. */
  auth?: boolean;
  params?: P;
  query?: Q;
  body?: B;
  responses: ZodOpenApiResponsesObject;
  handle: (args: RouteArgs<Ctx, Caller, P, Q, B>) => Promise<RouteReply | void> | RouteReply | void;
}

/** Keeps one route's generic parameters while routes of different shapes share one list. */
export function defineHttpRoute<Ctx, Caller>() {
  return <P extends AnyObject = z.ZodObject<Record<string, never>>, Q extends AnyObject = z.ZodObject<Record<string, never>>, B extends z.ZodType = z.ZodUndefined>(
    def: HttpRoute<Ctx, Caller, P, Q, B>,
  ): HttpRoute<Ctx, Caller> => def as unknown as HttpRoute<Ctx, Caller>;
}

/** `{id}` → `:id`. */
export function expressPath(path: string): string {
  return path.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1');
}
