import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ApiError, failureApiError, problemBody } from '@dv/runtime';
import type { GatewayContext } from '../context.ts';

// What a tool returns: structuredContent (the same JSON the REST route answers) plus a text
// summary an agent can quote; errors as tool errors (isError) carrying the problem code and
// detail, never a transport-level failure.

export function ok(text: string, structured: object): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: { ...(structured as Record<string, unknown>) } };
}

function detailText(detail: unknown): string {
  if (typeof detail === 'string') return detail;
  if (Array.isArray(detail)) {
    return detail
      .map((d: { loc?: unknown[]; msg?: string }) => `${Array.isArray(d.loc) ? d.loc.join('.') : ''}: ${d.msg ?? ''}`.replace(/^: /, ''))
      .join('; ');
  }
  return JSON.stringify(detail);
}

/** A problem as a tool error: "<code>: <detail>", then the problem body as JSON. */
export function problemResult(err: ApiError): CallToolResult {
  const retry = err.headers['Retry-After'] ? ` Retry after ${err.headers['Retry-After']} s.` : '';
  return { content: [{ type: 'text', text: `${err.code}: ${detailText(err.detail)}${retry}` }, { type: 'text', text: JSON.stringify(problemBody(err)) }], isError: true };
}

export function toolError(code: ConstructorParameters<typeof ApiError>[0], detail: string): CallToolResult {
  return problemResult(new ApiError(code, detail));
}

// The same mapping as the REST error handler (@dv/runtime's classifyFailure): a backing service
// that is down or slow is a temporary condition, anything else unexpected is logged and reported
// without internals.
export function errorResult(err: unknown, ctx: GatewayContext): CallToolResult {
  if (err instanceof ApiError) return problemResult(err);
  const temporary = failureApiError(err);
  if (temporary) return problemResult(temporary);
  ctx.log.error({ err }, 'MCP tool failed');
  return toolError('internal_error', 'The tool failed on our side; retry in a moment.');
}

/** Runs a tool body, turning every failure into a tool error. */
export async function guarded(ctx: GatewayContext, fn: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await fn();
  } catch (err) {
    return errorResult(err, ctx);
  }
}
