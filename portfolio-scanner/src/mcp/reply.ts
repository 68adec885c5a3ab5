import type { Request } from 'express';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ApiCaller, ApiContext } from '../api/context.ts';
import { toPortfolioError } from '../api/envelope.ts';

// What a tool returns: structuredContent (the JSON the REST route answers as `data`, plus `meta`
// where it pages) and a text summary an agent can quote; every failure a tool error (isError)
// carrying the API's error code and detail, mapped as the REST error handler maps it
// (toPortfolioError: a backing service down is service_unavailable, anything else internal_error).

export interface ToolEnv {
  ctx: ApiContext;
  caller: ApiCaller;
  /** The MCP HTTP request (for logging of unexpected errors). */
  req: Request;
}

export function ok(text: string, structured: object): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: { ...(structured as Record<string, unknown>) } };
}

export function errorResult(err: unknown, env: ToolEnv): CallToolResult {
  const e = toPortfolioError(err, env.req, env.ctx.log);
  const retry = e.headers['Retry-After'] ? ` Retry after ${e.headers['Retry-After']} s.` : '';
  const envelope = { status: 'error', data: null, meta: {}, errors: [{ code: e.code, detail: e.message }] };
  return { content: [{ type: 'text', text: `${e.code}: ${e.message}${retry}` }, { type: 'text', text: JSON.stringify(envelope) }], isError: true };
}

/** Runs a tool body, turning every failure into a tool error. */
export async function guarded(env: ToolEnv, fn: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await fn();
  } catch (err) {
    return errorResult(err, env);
  }
}
