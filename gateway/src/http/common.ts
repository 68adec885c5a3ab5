import { z } from 'zod';
import { isId } from '@dv/contracts';
import { ApiError } from '@dv/runtime';

// Request pieces shared by several routes.

export const maxAgeDays = z.number().int().min(0).max(365).nullable().meta({ description: 'A stored result not older than this many days may be served (0-365).' });

export const jobIdParams = z.object({ job_id: z.string().max(64).meta({ description: 'The job id (begins with job_).', example: 'job_01jb2x7k3m9q8r5t6v7w8x9y0z' }) });

/** A well-formed job id, else 404 (a malformed id names no job). */
export function requireJobId(id: string): string {
  if (!isId('job', id)) throw new ApiError('not_found', `No job ${id.slice(0, 64)}: job ids look like job_01…`);
  return id;
}

/** Query integers arrive as text: digits only, then range-checked. */
export function queryInt(min: number, max: number, fallback: number) {
  return z
    .string()
    .regex(/^\d{1,6}$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max))
    .optional()
    .transform((v) => v ?? fallback)
    .meta({ description: `Integer ${min}-${max}, default ${fallback}.` });
}

/** Opaque cursors: base64url of a small JSON value, so clients never build them. */
export function encodeCursor(v: unknown): string {
  return Buffer.from(JSON.stringify(v)).toString('base64url');
}

export function decodeCursor<T>(s: string, check: (v: unknown) => v is T): T {
  try {
    const v = JSON.parse(Buffer.from(s, 'base64url').toString('utf8')) as unknown;
    if (check(v)) return v;
  } catch {
    // fall through
  }
  throw new ApiError('validation_error', [{ loc: ['query', 'cursor'], msg: 'not a cursor this API issued; pass next_cursor unchanged', type: 'invalid_cursor', input: s.slice(0, 200) }]);
}
