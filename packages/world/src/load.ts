// Reading and validating world files, with one error that lists every problem found.
import { readFileSync } from 'node:fs';
import type { z } from 'zod';
import { dnsRecordSchema, dnsSchema, smtpSchema, worldSchema } from './schema.ts';
import type { DnsRecord, DnsRecordInput, World, WorldInput } from './schema.ts';

export class WorldValidationError extends Error {
  readonly problems: string[];

  constructor(source: string, problems: string[]) {
    super(`${source} is not a valid world:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'WorldValidationError';
    this.problems = problems;
  }
}

export function loadWorld(path: string): World {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new WorldValidationError(path, [`cannot read the file: ${(error as Error).message}`]);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new WorldValidationError(path, [`not JSON: ${(error as Error).message}`]);
  }
  return parseWorld(data, path);
}

export function parseWorld(data: WorldInput | unknown, source = 'world'): World {
  const result = worldSchema.safeParse(data);
  if (result.success) return result.data;
  const problems = formatIssues(result.error.issues);
  // Zod skips whole-world checks (CNAME exclusivity, host A records) while any field is invalid;
  // run them anyway when the sections they need are valid, so one pass reports every problem.
  problems.push(...crossCheckProblems(data).filter((p) => !problems.includes(p)));
  throw new WorldValidationError(source, problems);
}

export function parseRecords(records: DnsRecordInput[] | unknown, source = 'records'): DnsRecord[] {
  const result = dnsRecordSchema.array().safeParse(records);
  if (result.success) return result.data;
  throw new WorldValidationError(source, formatIssues(result.error.issues));
}

function crossCheckProblems(data: unknown): string[] {
  if (typeof data !== 'object' || data === null) return [];
  const record = data as Record<string, unknown>;
  const dns = dnsSchema.safeParse(record.dns ?? {});
  const smtp = smtpSchema.safeParse(record.smtp ?? {});
  if (!dns.success || !smtp.success) return [];
  const minimal = worldSchema.safeParse({ dns: record.dns, smtp: record.smtp });
  return minimal.success ? [] : formatIssues(minimal.error.issues);
}

type Issue = z.core.$ZodIssue;

function formatIssues(issues: readonly Issue[], prefix: (string | number)[] = []): string[] {
  return issues.flatMap((issue) => {
    const path = [...prefix, ...issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p))];
    if (issue.code === 'invalid_key' || issue.code === 'invalid_element') {
      return formatIssues(issue.issues, path);
    }
    return [`${formatPath(path)}: ${issue.message}`];
  });
}

function formatPath(path: (string | number)[]): string {
  if (path.length === 0) return '(root)';
  return path
    .map((part, i) => {
      if (typeof part === 'number') return `[${part}]`;
      if (!/^[\w$]+$/.test(part)) return `[${JSON.stringify(part)}]`;
      return i === 0 ? part : `.${part}`;
    })
    .join('');
}
