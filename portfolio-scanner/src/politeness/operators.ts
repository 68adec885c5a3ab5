// Which authoritative operator answers a name, and its budget. Pure: the NS lookup is the
// resolver's (polite-resolver.ts); here are the rules that turn its answer into a budget.
import { organizationalDomain } from '@dv/mailsec';
import { OPERATOR_TABLE, OTHER_OPERATOR, type OperatorRow } from './operator-table.ts';

export interface Operator {
  /** The budget's key: the table row's name, or the NS hosts' registrable domain for others. */
  key: string;
  /** Metric label: the table row's name or "other" (bounded). */
  label: string;
  qps: number;
}

export interface OperatorBudgetOptions {
  defaultQps: number;
  /** Overrides by table name ("Route 53") or by NS registrable domain ("example-dns.net"). */
  overrides?: Readonly<Record<string, number>>;
  table?: readonly OperatorRow[];
}

/**
 * The zone a name is charged to: its registrable domain (RFC 9091's organizational domain, via
 * the PSL), which is the delegated zone for nearly every name a scan asks. Reverse names are
 * charged to their /24 (IPv4) or /48 (IPv6) zone: every address would otherwise share the
 * registry's in-addr.arpa zone and one budget, while PTR records are served by the address
 * holder's own servers.
 */
export function zoneOf(name: string): string {
  const n = name.toLowerCase().replace(/\.$/, '');
  if (n.endsWith('.in-addr.arpa')) {
    const labels = n.split('.');
    return labels.length > 5 ? labels.slice(labels.length - 5).join('.') : n;
  }
  if (n.endsWith('.ip6.arpa')) {
    const labels = n.split('.');
    // 12 nibbles (a /48) + "ip6.arpa".
    return labels.length > 14 ? labels.slice(labels.length - 14).join('.') : n;
  }
  return organizationalDomain(n);
}

/**
 * The registrable domain most of the NS hosts share (ties: the first in code-point order). A
 * resolver asks one of them per query, so one operator is charged, not each.
 */
export function nsDomain(nsHosts: readonly string[]): string | null {
  const counts = new Map<string, number>();
  for (const host of nsHosts) {
    const d = organizationalDomain(host.toLowerCase().replace(/\.$/, ''));
    counts.set(d, (counts.get(d) ?? 0) + 1);
  }
  let best: string | null = null;
  let bestCount = 0;
  for (const [d, c] of [...counts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (c > bestCount) {
      best = d;
      bestCount = c;
    }
  }
  return best;
}

export class OperatorBudgets {
  readonly #byDomain = new Map<string, OperatorRow>();
  readonly #patterns: OperatorRow[] = [];
  readonly #options: OperatorBudgetOptions;

  constructor(options: OperatorBudgetOptions) {
    this.#options = options;
    for (const row of options.table ?? OPERATOR_TABLE) {
      for (const d of row.domains ?? []) this.#byDomain.set(d, row);
      if (row.pattern) this.#patterns.push(row);
    }
  }

  /** The operator of a zone whose NS hosts live under `domain` (their registrable domain). */
  forNsDomain(domain: string): Operator {
    const row = this.#byDomain.get(domain) ?? this.#patterns.find((r) => r.pattern?.test(domain));
    const overrides = this.#options.overrides ?? {};
    if (row) return { key: row.name, label: row.name, qps: overrides[row.name] ?? overrides[domain] ?? row.qps };
    return { key: domain, label: OTHER_OPERATOR, qps: overrides[domain] ?? this.#options.defaultQps };
  }

  /** A zone whose operator is not known (its NS lookup failed): charged on its own, at the default. */
  forUnknownZone(zone: string): Operator {
    return { key: `zone:${zone}`, label: OTHER_OPERATOR, qps: this.#options.defaultQps };
  }

  /** Names the overrides may use: the table's operator names (for config validation). */
  static tableNames(table: readonly OperatorRow[] = OPERATOR_TABLE): string[] {
    return table.map((r) => r.name);
  }
}
