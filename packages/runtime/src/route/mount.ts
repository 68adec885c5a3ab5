import type { Express, NextFunction, Request, Response } from 'express';
import type { z } from 'zod';
import { expressPath, type HttpRoute, type RouteInput, type RouteReply } from './define.ts';
import { parseInput, type InputSource, type ValidationIssue } from './issues.ts';

// Mounts routes on express with the API's own pieces: how a caller is authenticated, how each
// kind of failure becomes that API's error (thrown, then rendered by its error handler) and how a
// reply is written. Unknown methods on a known path answer 405 with Allow; unknown paths and
// every error go through `mountRouteErrors`, whose `render` is the API's error model.

export interface MountOptions<Ctx, Caller> {
  ctx: Ctx;
  /** Runs for routes with `auth` not false; throws the API's 401/403/429. */
  authenticate?: (req: Request, res: Response, route: HttpRoute<Ctx, Caller>) => Promise<Caller>;
  /** The error thrown for invalid path, query, header or body input. */
  invalid: (issues: ValidationIssue[], where: InputSource) => unknown;
  /** The error thrown for a body that is not JSON (routes with a `body`, not `rawBody`); absent: the body schema alone judges. */
  notJson?: () => unknown;
  /** The error for a method the path does not serve; `allow` is the Allow header value. */
  methodNotAllowed: (method: string, path: string, allow: string) => unknown;
  /** Writes a RouteReply in the API's success shape. */
  send: (res: Response, reply: RouteReply) => void;
  /** Aborts every handler's `signal` (the process drains). */
  signal?: AbortSignal;
}

/** The values of the headers a schema names, under the schema's spelling. */
function headerValues(schema: z.ZodObject | undefined, req: Request): Record<string, unknown> | undefined {
  if (!schema) return undefined;
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(schema.shape)) {
    const v = req.headers[name.toLowerCase()];
    if (v !== undefined) out[name] = v;
  }
  return out;
}

/**
 * A handler's arguments. `signal` aborts when the response closes unfinished (the client left) or
 * the process drains; it is made when the handler first reads it: most never do, and an
 * AbortController with two listeners on every call was a measurable share of a small call. A
 * class (one shape, the getter on its prototype) rather than an object literal with a getter, which
 * V8 builds on a slow path.
 */
class HandlerArgs<Ctx, Caller> {
  readonly ctx: Ctx;
  readonly input: RouteInput<z.ZodObject, z.ZodObject, z.ZodType>;
  readonly caller: Caller;
  readonly req: Request;
  readonly res: Response;
  private abort: AbortController | undefined;
  private readonly drain: AbortSignal | undefined;

  constructor(ctx: Ctx, input: RouteInput<z.ZodObject, z.ZodObject, z.ZodType>, caller: Caller, req: Request, res: Response, drain: AbortSignal | undefined) {
    this.ctx = ctx;
    this.input = input;
    this.caller = caller;
    this.req = req;
    this.res = res;
    this.drain = drain;
  }

  /** The listeners, made with the signal (none on a call whose handler never reads it). */
  private listeners: { onClose: () => void; onDrain: () => void } | undefined;

  get signal(): AbortSignal {
    if (!this.abort) {
      const abort = new AbortController();
      this.abort = abort;
      if (this.drain?.aborted || ((this.res.closed || this.res.destroyed) && !this.res.writableFinished)) abort.abort();
      else {
        const res = this.res;
        this.listeners = {
          onClose: () => {
            if (!res.writableFinished) abort.abort();
          },
          onDrain: () => abort.abort(),
        };
        res.on('close', this.listeners.onClose);
        this.drain?.addEventListener('abort', this.listeners.onDrain, { once: true });
      }
    }
    return this.abort.signal;
  }

  /** Drops the listeners, if the signal was made. */
  done(): void {
    if (!this.listeners) return;
    this.res.off('close', this.listeners.onClose);
    this.drain?.removeEventListener('abort', this.listeners.onDrain);
  }
}

function isJson(req: Request): boolean {
  return Boolean(req.is('application/json') || req.is('application/*+json'));
}

export function mountHttpRoutes<Ctx, Caller>(app: Express, routes: readonly HttpRoute<Ctx, Caller>[], opts: MountOptions<Ctx, Caller>): void {
  const byPath = new Map<string, HttpRoute<Ctx, Caller>[]>();
  for (const r of routes) byPath.set(r.path, [...(byPath.get(r.path) ?? []), r]);
  for (const [path, defs] of byPath) {
    // Strict routing: `/api/v1/domains` and `/api/v1/domains/` are one route unless the API says otherwise.
    const route = app.route(expressPath(path));
    for (const def of defs) {
      route[def.method](async (req: Request, res: Response, next: NextFunction) => {
        let args: HandlerArgs<Ctx, Caller> | undefined;
        try {
          const caller = def.auth !== false && opts.authenticate ? await opts.authenticate(req, res, def) : undefined;
          if (def.body && !def.rawBody && opts.notJson && !isJson(req)) throw opts.notJson();
          const input = {
            headers: parseInput(def.headers, headerValues(def.headers, req), 'header', opts.invalid),
            params: def.params && parseInput(def.params, req.params, 'path', opts.invalid),
            // express 5 parses the query string on every read of req.query.
            query: def.query && parseInput(def.query, req.query, 'query', opts.invalid),
            body: def.rawBody ? undefined : parseInput(def.body, req.body, 'body', opts.invalid),
          };
          args = new HandlerArgs(opts.ctx, input as RouteInput<z.ZodObject, z.ZodObject, z.ZodType>, caller as Caller, req, res, opts.signal);
          const reply = await def.handle(args);
          if (reply && !res.headersSent) opts.send(res, reply);
        } catch (err) {
          next(err);
        } finally {
          args?.done();
        }
      });
    }
    const allow = [...new Set(defs.flatMap((d) => (d.method === 'get' ? ['GET', 'HEAD'] : [d.method.toUpperCase()])))].join(', ');
    route.all((req: Request, _res: Response, next: NextFunction) => {
      next(opts.methodNotAllowed(req.method, path, allow));
    });
  }
}

/**
 * The usual `send`: the reply's headers, `Cache-Control: private, no-store` (answers carry the
 * caller's own data and usage, never for shared caches), its status and JSON body.
 */
export function sendPrivateJson(res: Response, reply: RouteReply): void {
  if (reply.headers) for (const k in reply.headers) res.setHeader(k, reply.headers[k]!);
  res.setHeader('Cache-Control', 'private, no-store');
  writeJson(res, reply.status, reply.body);
}

const JSON_UTF8 = 'application/json; charset=utf-8';

/**
 * What express's `res.status(s).json(body)` writes for these answers, without its generic `send`
 * (content type re-parsed to add the charset, ETag and freshness checks that never apply: ETags are
 * off and nothing here sets one), which small, frequent answers paid on every call. Bodies
 * without content (204, 304), a content type the reply chose and bodies JSON cannot write go
 * through express as before. The apps set no `json replacer`, `json spaces` or `json escape`.
 */
export function writeJson(res: Response, status: number, body: unknown): void {
  const json = status === 204 || status === 304 || res.hasHeader('Content-Type') ? undefined : JSON.stringify(body);
  if (json === undefined) {
    res.status(status).json(body);
    return;
  }
  res.statusCode = status;
  res.setHeader('Content-Type', JSON_UTF8);
  res.setHeader('Content-Length', Buffer.byteLength(json));
  if (res.req.method === 'HEAD') res.end();
  else res.end(json, 'utf8');
}

export interface RouteErrorOptions {
  /** Mount path the handlers cover (default: everything after the routes). */
  prefix?: string;
  /** The error for a path no route serves. */
  notFound: (req: Request) => unknown;
  /** Renders any error (thrown by a route, express's body parser or notFound) in the API's model. */
  render: (err: unknown, req: Request, res: Response) => void;
}

/** The API's 404 and error handler; mount after its routes. */
export function mountRouteErrors(app: Express, opts: RouteErrorOptions): void {
  const notFound = (req: Request, _res: Response, next: NextFunction) => next(opts.notFound(req));
  const onError = (err: unknown, req: Request, res: Response, _next: NextFunction) => {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    opts.render(err, req, res);
  };
  if (opts.prefix) app.use(opts.prefix, notFound, onError);
  else app.use(notFound, onError);
}
