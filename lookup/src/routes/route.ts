import type { Express } from 'express';
import { z } from 'zod';
import { ApiError, defineHttpRoute, mountHttpRoutes, sendPrivateJson, type HttpRoute, type InputSource, type ValidationIssue } from '@dv/runtime';
import { resolveCaller, type Caller } from '../caller.ts';
import type { LookupContext } from '../context.ts';

// The shared route helper (@dv/runtime route/) bound to the lookup API: its context, its caller
// (anonymous or a free key; `auth: 'optional'` routes resolve it before validation), and its
// problem+json errors. The 404 and error handler are the runtime's finishHttpApp.

export const defineRoute = defineHttpRoute<LookupContext, Caller>();
export type RouteDef = HttpRoute<LookupContext, Caller>;

export const retryAfterHeader = z.object({ 'Retry-After': z.number().int().meta({ description: 'Seconds until the limit resets (00:00 UTC for daily allowances).' }) });

/** A 400 naming the first bad field, with every issue under `errors`. */
export function invalidInput(issues: ValidationIssue[], where: InputSource): ApiError {
  const errors = issues.map((i) => ({ in: where, field: i.loc.slice(1).join('.') || null, message: i.msg }));
  const first = errors[0];
  return new ApiError('invalid_request', `Invalid ${where}${first?.field ? ` ${first.field}` : ''}: ${first?.message ?? 'bad value'}`, { errors });
}

/** Mounts every route; other methods on a known path answer 405 with an Allow header (HEAD is answered wherever GET is). */
export function mountRoutes(app: Express, ctx: LookupContext, routes: readonly RouteDef[]): void {
  mountHttpRoutes(app, routes, {
    ctx,
    authenticate: (req) => resolveCaller(ctx, req),
    invalid: invalidInput,
    methodNotAllowed: (method, path, allow) => new ApiError('method_not_allowed', `${method} is not supported on ${path}; use ${allow}.`, {}, { Allow: allow }),
    // Lookup answers carry the caller's usage: never for shared caches.
    send: sendPrivateJson,
  });
}
