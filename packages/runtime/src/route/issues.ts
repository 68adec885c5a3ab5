import type { z } from 'zod';

// zod issues in one API-neutral shape (where the value came from, its path, the message, the
// zod code, the offending value trimmed), for each API to render in its own error model.

export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
  input?: unknown;
}

export type InputSource = 'path' | 'query' | 'body' | 'header';

export function zodIssues(where: InputSource, error: z.ZodError, input: unknown): ValidationIssue[] {
  return error.issues.map((i) => {
    const issue: ValidationIssue = { loc: [where, ...i.path.map((p) => (typeof p === 'number' ? p : String(p)))], msg: i.message, type: i.code };
    const value = valueAt(input, i.path);
    if (value !== undefined) issue.input = trimmed(value);
    return issue;
  });
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
