import { z } from 'zod';

/**
 * One environment variable a service reads, written once: its name (the key of the table it sits
 * in), its validation with its default (`schema`, which takes the value from the service's defaults
 * module, where the default is chosen and commented), its unit, and what it does. A service's
 * config schema is built from its rows (`shapeOf`), and the docs' configuration tables are printed
 * from them (scripts/config-tables.ts), so the table a reader sees is the one the process applies.
 */
export interface Tunable<S extends z.ZodType = z.ZodType> {
  readonly schema: S;
  /** What the variable does, for the docs' tables (markdown, one line). */
  readonly meaning: string;
  /** The unit when the name does not end in one (…_MS, …_S, …_BYTES: see unitOf). */
  readonly unit?: string;
  /** How the docs show a default that is not a value: unset, generated, the system's resolvers. */
  readonly defaultText?: string;
}

export type Tunables = Readonly<Record<string, Tunable>>;

/** Declares rows, keeping each schema's type so `shapeOf` gives a typed zod shape. */
export function tunables<T extends Record<string, Tunable>>(rows: T): T {
  return rows;
}

/** The zod shape of some rows, in their order (the order validation problems are listed in). */
export function shapeOf<T extends Tunables>(rows: T): { [K in keyof T]: T[K]['schema'] } {
  const shape: Record<string, z.ZodType> = {};
  for (const [name, row] of Object.entries(rows)) shape[name] = row.schema;
  return shape as { [K in keyof T]: T[K]['schema'] };
}

/** Name endings that carry the unit (the house rule: a unit belongs in the name), longest first. */
const UNIT_SUFFIXES: readonly (readonly [string, string])[] = [
  ['_PER_IP_PER_MINUTE', 'per client IP per minute'],
  ['_PER_EMAIL_PER_DAY', 'per address per UTC day'],
  ['_PER_IP_PER_DAY', 'per client IP per UTC day'],
  ['_PER_DAY', 'per UTC day'],
  ['_PER_HOUR', 'per hour'],
  ['_PER_MIN', 'per minute'],
  ['_PER_S', 'per second'],
  ['_SECONDS', 's'],
  ['_MINUTES', 'min'],
  ['_DAYS', 'days'],
  ['_BYTES', 'bytes'],
  ['_CHARS', 'characters'],
  ['_QPS', 'queries/s'],
  ['_MS', 'ms'],
  ['_S', 's'],
];

/** The unit its name carries, if any. */
export function nameUnit(name: string): string | undefined {
  return UNIT_SUFFIXES.find(([suffix]) => name.endsWith(suffix))?.[1];
}

/** The row's unit: its name's, else the one it gives. */
export function unitOf(name: string, row: Tunable): string {
  return nameUnit(name) ?? row.unit ?? '';
}

/** The default as the docs show it: read back from the schema, so it is the value applied. */
export function defaultOf(row: Tunable): string {
  if (row.defaultText !== undefined) return row.defaultText;
  const parsed = row.schema.safeParse(undefined);
  if (!parsed.success || parsed.data === undefined) return 'unset';
  const value: unknown = parsed.data;
  if (Array.isArray(value)) return value.length === 0 ? 'empty' : value.join(',');
  if (value === '') return 'empty';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** Accepted range of a whole-number row (from its schema), e.g. `0-300000`; '' for other kinds. */
export function rangeOf(row: Tunable): string {
  let inner: unknown = row.schema;
  // Through .default()/.optional() wrappers to the number itself.
  while (inner instanceof z.ZodDefault || inner instanceof z.ZodOptional) inner = (inner as z.ZodDefault | z.ZodOptional).unwrap();
  if (!(inner instanceof z.ZodNumber)) return '';
  const { minValue, maxValue } = inner;
  if (minValue === null || maxValue === null || !Number.isFinite(minValue)) return '';
  return maxValue >= Number.MAX_SAFE_INTEGER ? `≥ ${minValue}` : `${minValue}-${maxValue}`;
}

const cell = (text: string) => text.replace(/\|/g, '\\|');

/** The markdown table of some rows: Variable, Default, Unit, Meaning. */
export function markdownTable(rows: Tunables): string {
  const lines = ['| Variable | Default | Unit | Meaning |', '|---|---|---|---|'];
  for (const [name, row] of Object.entries(rows)) {
    const range = rangeOf(row);
    const fallback = defaultOf(row);
    const shown = row.defaultText !== undefined || fallback === 'unset' || fallback === 'empty' ? fallback : `\`${fallback}\``;
    const unit = [unitOf(name, row), range === '' ? '' : `(${range})`].filter(Boolean).join(' ');
    lines.push(`| \`${name}\` | ${cell(shown)} | ${cell(unit)} | ${cell(row.meaning)} |`);
  }
  return lines.join('\n');
}
