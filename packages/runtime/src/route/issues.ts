import type { z } from 'zod';

// zod issues in one API-neutral shape (where the value came from, its path, the message, the
// zod code, the offending value trimmed, the bounds or choices that were broken), for each API to
// render in its own error model.

export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
  input?: unknown;
  /** What the value had to meet: minimum, maximum, expected, values, format, keys. */
  ctx?: Record<string, unknown>;
}

export type InputSource = 'path' | 'query' | 'body' | 'header';

const CTX_KEYS = ['minimum', 'maximum', 'expected', 'values', 'format', 'keys'] as const;

export function zodIssues(where: InputSource, error: z.ZodError, input: unknown): ValidationIssue[] {
  return error.issues.map((i) => {
    const issue: ValidationIssue = { loc: [where, ...i.path.map((p) => (typeof p === 'number' ? p : String(p)))], msg: i.message, type: i.code };
    const value = valueAt(input, i.path);
    if (value !== undefined) issue.input = trimmed(value);
    const ctx: Record<string, unknown> = {};
    for (const k of CTX_KEYS) if (k in i) ctx[k] = (i as unknown as Record<string, unknown>)[k];
    // bigint bounds (z.bigint) are not JSON.
    if (Object.keys(ctx).length > 0) issue.ctx = JSON.parse(JSON.stringify(ctx, (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v)));
    return issue;
  });
}

/** Validates one part of the input; a failure throws what the API's `invalid` makes of the issues. */
export function parseInput<S extends z.ZodType>(schema: S | undefined, value: unknown, where: InputSource, invalid: (issues: ValidationIssue[], where: InputSource) => unknown): z.output<S> | undefined {
  if (!schema) return undefined;
  const input = value ?? (where === 'body' ? undefined : {});
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw invalid(zodIssues(where, result.error, input), where);
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let v = input;
  for (const p of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[p];
  }
  return v;
}

/** Inputs are echoed back, but never a megabyte of them. */
function trimmed(v: unknown): unknown {
  if (typeof v === 'string') return v.length > 200 ? `${v.slice(0, 200)}…` : v;
  if (Array.isArray(v)) return v.length > 5 ? `[array of ${v.length}]` : v.map(trimmed);
  if (v && typeof v === 'object') return JSON.stringify(v).length > 300 ? '{…}' : v;
  return v;
}
