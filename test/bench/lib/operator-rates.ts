// The portfolio bench's politeness verdict: the busiest second of each authoritative-server
// operator over the passes, against its budget, from the delay proxy's per-second counts.
import type { OperatorMap } from './portfolio-world.ts';

/**
 * Over budget: the budget allows floor(qps) queries in any second (docs/portfolio-scanner.md,
 * Politeness); 1% and one query of slack for the proxy's own timing. The proxy uses the same rule
 * to keep the details of each second over.
 */
export function overBudget(queries: number, qps: number): boolean {
  return queries > qps * 1.01 + 1;
}

export interface PassRates {
  /** Busiest second of each operator in the pass. */
  maxPerOp: Record<string, number>;
  /** Each operator-second over budget: its queries by source port and type, and their names. */
  overDetails: string[];
}

export interface OperatorVerdict {
  maxQps: number;
  maxOp: string;
  /** `<operator> <queries>/<budget> (<pass>)` for each operator over budget in a pass. */
  over: string[];
  /** The lines to print. */
  lines: string[];
}

export function operatorVerdict(operators: OperatorMap, passes: readonly (readonly [string, PassRates])[]): OperatorVerdict {
  const budgets = new Map(Object.values(operators).map((o) => [o.key, o.qps]));
  let maxQps = 0;
  let maxOp = '';
  const over: string[] = [];
  for (const [pass, r] of passes) {
    for (const [op, q] of Object.entries(r.maxPerOp)) {
      if (q > maxQps) [maxQps, maxOp] = [q, op];
      const budget = budgets.get(op);
      if (budget !== undefined && overBudget(q, budget)) over.push(`${op} ${q}/${budget} (${pass})`);
    }
  }
  const lines = [`busiest operator second: ${maxOp} ${maxQps} queries (budget ${budgets.get(maxOp) ?? '?'}); over budget: ${over.length ? over.join(', ') : 'none'}`];
  for (const [pass, r] of passes) for (const d of r.overDetails) lines.push(`  over budget (${pass}): ${d}`);
  return { maxQps, maxOp, over, lines };
}
