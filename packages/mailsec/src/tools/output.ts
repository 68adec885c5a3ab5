// Building blocks of a ToolOutput: the meta block, the DNSSEC probe every DNS tool reports, the
// display list conventions and the ready-to-quote report text.
import { dnssecStatus, type DnssecFacts } from '../dns/dnssec.ts';
import type { ToolContext } from './context.ts';
import type { ToolMeta } from './types.ts';

export function makeMeta(ctx: ToolContext, domain: string, emailGateway: string | null, dnssec: string, extra: Record<string, unknown> = {}): ToolMeta {
  return { domain, email_gateway: emailGateway, dnssec, timestamp: ctx.now().toISOString(), ...extra };
}

/** DNSSEC status of a name from its DNSKEY answer (one query, cached) by the rule in dns/dnssec.ts. */
export async function probeDnssec(ctx: ToolContext, domain: string): Promise<DnssecFacts> {
  const dnskey = await ctx.resolver.resolve(domain, 'DNSKEY');
  return dnssecStatus(dnskey, []);
}

/** "a, b, c" or "none". */
export function list(values: readonly string[], none = 'none'): string {
  return values.length > 0 ? values.join(', ') : none;
}

/** One value per line, or "none". */
export function lines(values: readonly string[], none = 'none'): string {
  return values.length > 0 ? values.join('\n') : none;
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/**
 * A plain-text block: a title line, the check time, the labelled values (continuation lines
 * indented under the value) and optional findings. Meant to be pasted into a ticket or an email.
 */
export function formatReport(title: string, timestamp: string, result: Record<string, string>, findings: readonly string[] = []): string {
  const labels = Object.keys(result);
  const width = Math.min(28, Math.max(0, ...labels.map((l) => l.length)));
  const out = [title, `Checked ${timestamp}`, ''];
  for (const label of labels) {
    const [first = '', ...rest] = (result[label] ?? '').split('\n');
    out.push(`${label.padEnd(width)}  ${first}`);
    for (const line of rest) out.push(`${' '.repeat(width)}  ${line}`);
  }
  if (findings.length > 0) {
    out.push('', 'Findings:');
    for (const f of findings) out.push(`- ${f}`);
  }
  return out.join('\n');
}

/** Keeps the first `limit` items unless `full`; records what was cut in `truncated`. */
export function clip<T>(type: string, items: readonly T[], limit: number, full: boolean, truncated: Record<string, { shown: number; total: number }>): T[] {
  if (full || items.length <= limit) return [...items];
  truncated[type] = { shown: limit, total: items.length };
  return items.slice(0, limit);
}

/** "in 3 years", "2 days ago": for registration dates. */
export function relativeDays(fromMs: number, toIso: string | null): string | null {
  if (toIso === null) return null;
  const t = Date.parse(toIso);
  if (Number.isNaN(t)) return null;
  const days = Math.round((t - fromMs) / 86_400_000);
  const abs = Math.abs(days);
  const span = abs >= 730 ? plural(Math.floor(abs / 365), 'year') : abs >= 60 ? plural(Math.floor(abs / 30), 'month') : plural(abs, 'day');
  return days >= 0 ? `in ${span}` : `${span} ago`;
}
