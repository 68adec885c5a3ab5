import type { Request, Response } from 'express';
import { ApiError, parseInput } from '@dv/runtime';
import type { GatewayContext } from '../context.ts';
import { validationError } from '../http/problems.ts';
import type { RouteDef } from '../http/route.ts';
import type { Caller } from '../services/auth.ts';

// MCP tools run the REST routes' own handlers (the same services, validation, credits, limits and
// idempotency path) rather than a second implementation. The caller was authenticated once for
// the HTTP request that carried the tool call; MCP calls have no Idempotency-Key, so writes run
// once per call (Idempotency.run without a key simply does the work).

export interface ToolEnv {
  ctx: GatewayContext;
  caller: Caller;
  /** Aborted when the MCP HTTP request goes away or the process drains. */
  signal: AbortSignal;
}

export interface InvokeInput {
  params?: Record<string, unknown>;
  query?: Record<string, unknown>;
  body?: unknown;
  /** Stand-in for the express request (jobs-create reads `req.is` and the body or the multipart stream). */
  req?: Partial<Request>;
}

/** Runs one route handler and returns its JSON body; a problem reply or a thrown ApiError becomes an ApiError. */
export async function invoke<T = Record<string, unknown>>(env: ToolEnv, def: RouteDef, input: InvokeInput): Promise<{ status: number; body: T }> {
  const parsed = {
    params: parseInput(def.params, input.params, 'path', validationError),
    query: parseInput(def.query, input.query, 'query', validationError),
    body: def.rawBody ? undefined : parseInput(def.body, input.body, 'body', validationError),
    headers: {},
  };
  const reply = await def.handle({
    ctx: env.ctx,
    input: parsed as Parameters<RouteDef['handle']>[0]['input'],
    caller: env.caller,
    req: (input.req ?? { headers: {}, is: () => false }) as Request,
    res: {} as Response,
    signal: env.signal,
  });
  if (!reply) throw new ApiError('internal_error', `${def.operationId} produced no JSON reply.`);
  const ct = reply.headers?.['Content-Type'] ?? '';
  if (ct.startsWith('application/problem+json') || reply.status >= 400) {
    const b = reply.body as { code?: string; detail?: unknown };
    throw new ApiError((b.code ?? 'internal_error') as ConstructorParameters<typeof ApiError>[0], b.detail ?? 'request failed', {}, reply.headers ?? {});
  }
  return { status: reply.status, body: reply.body as T };
}

/** A request stand-in for a JSON body (jobs-create branches on the content type). */
export function jsonRequest(body: unknown): Partial<Request> {
  return { headers: { 'content-type': 'application/json' }, body, is: ((t: string) => (t === 'application/json' ? t : false)) as Request['is'] };
}
