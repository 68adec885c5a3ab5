// spf_analyze: the SPF include/redirect tree with lookups per node and the 10-lookup verdict.
import type { SpfAnalysis, SpfTreeNode } from '../spf/analyzer.ts';
import { analyzeSpf } from '../spf/analyzer.ts';
import { checkTarget } from '../target.ts';
import type { ToolContext } from './context.ts';
import { formatReport, list, makeMeta, plural, probeDnssec } from './output.ts';
import type { ToolInput, ToolOutput } from './types.ts';

export async function spfAnalyze(ctx: ToolContext, input: ToolInput): Promise<ToolOutput> {
  const { domain } = checkTarget(input.target, { allowIp: false, allowPrivate: false }) as { kind: 'domain'; domain: string };
  const [spf, dnssec] = await Promise.all([analyzeSpf(domain, ctx.resolver), probeDnssec(ctx, domain)]);
  const verdictText = spf.verdict === 'ok' ? 'ok' : 'over the limit';
  const includes = collect(spf.tree).filter((n) => n.via !== 'root');
  const result: Record<string, string> = {
    'SPF Record': spf.record ?? (spf.status === 'temperror' ? `lookup failed (${spf.tree.error ?? 'DNS error'})` : 'none'),
    Status: spf.status,
    'DNS Lookups': `${spf.lookups.total} of ${spf.lookups.limit} (${verdictText}): ${spf.lookups.main} in the record, ${spf.lookups.nested} nested`,
    'Void Lookups': `${spf.voidLookups.total} of ${spf.voidLookups.limit} (${spf.voidVerdict === 'ok' ? 'ok' : 'over the limit'})`,
    Includes: list(includes.map((n) => `${n.domain} (${n.totalLookups})`)),
    Loops: list(spf.loops.map((l) => l.join(' -> '))),
    Warnings: spf.warnings.length > 0 ? spf.warnings.map((w) => `[${w.severity}] ${w.message}`).join('\n') : 'none',
  };
  return {
    summary: summarize(domain, spf),
    result,
    data: {
      meta: makeMeta(ctx, domain, null, dnssec.status),
      records: { SPF: spf.tree.records },
      spf: {
        status: spf.status,
        record: spf.record ?? null,
        verdict: spf.verdict,
        void_verdict: spf.voidVerdict,
        lookups: spf.lookups,
        void_lookups: spf.voidLookups,
        counts: { includes: includes.length, warnings: spf.warnings.length, errors: spf.warnings.filter((w) => w.severity === 'error').length },
        loops: spf.loops,
        warnings: spf.warnings,
        tree: spf.tree,
      },
    },
    report: [formatReport(`SPF analysis for ${domain}`, ctx.now().toISOString(), result), '', 'Include tree (lookups: own / subtree):', ...renderTree(spf.tree, 0)].join('\n'),
  };
}

function summarize(domain: string, spf: SpfAnalysis): string {
  if (!spf.record) {
    return spf.status === 'temperror' ? `The SPF lookup for ${domain} failed (${spf.tree.error ?? 'DNS error'}).` : `${domain} publishes no SPF record.`;
  }
  // An include whose lookup failed has an unknown subtree: the count is a lower bound, and "ok" is not known.
  const failed = collect(spf.tree).filter((n) => n.via !== 'root' && n.status === 'temperror');
  if (failed.length > 0 && spf.verdict === 'ok') {
    return `SPF uses at least ${spf.lookups.total} of ${spf.lookups.limit} DNS lookups; whether it stays within the limit is unknown: ${failed.map((n) => n.domain).join(', ')} could not be looked up (${failed[0]?.error ?? 'DNS error'}).`;
  }
  const base = `SPF uses ${spf.lookups.total} of ${spf.lookups.limit} DNS lookups (${spf.verdict === 'ok' ? 'ok' : 'over the limit: receivers return permerror'})`;
  const errors = spf.warnings.filter((w) => w.severity === 'error').length;
  const extra = [
    spf.loops.length > 0 ? plural(spf.loops.length, 'include loop') : '',
    errors > 0 ? plural(errors, 'error') : '',
    spf.warnings.length - errors > 0 ? plural(spf.warnings.length - errors, 'warning') : '',
  ].filter((s) => s !== '');
  return `${base}${extra.length > 0 ? `; ${extra.join(', ')}` : ''}.`;
}

function collect(node: SpfTreeNode): SpfTreeNode[] {
  return [node, ...node.children.flatMap(collect)];
}

function renderTree(node: SpfTreeNode, depth: number): string[] {
  const label = depth === 0 ? node.domain : `${node.term ?? node.via} -> ${node.domain}`;
  const status = node.status === 'ok' ? '' : ` [${node.status}]`;
  return [`${'  '.repeat(depth)}${label} (${node.lookups} / ${node.totalLookups})${status}`, ...node.children.flatMap((c) => renderTree(c, depth + 1))];
}
