// The SPF lookup tool's view of a domain: the whole include/redirect tree with the DNS lookups
// each record costs, void lookups, loops, and the problems worth telling the owner about.
// Unlike check_host() it needs no client IP, so terms built from macros are shown, not resolved.
import { isDnsFailure, type Resolver } from '../resolver/types.ts';
import { checkableDomain } from './domain.ts';
import { isSpfRecordText, parseSpfRecord, SPF_ERROR, type SpfRecord, type SpfTerm } from './parser.ts';
import { selectSpfRecords } from './select.ts';
import { SPF_WARNING, warn, type SpfWarning } from './warnings.ts';

export const ANALYZE_DEFAULTS = {
  /** RFC 7208 4.6.4 limits the verdict is judged against. */
  maxLookups: 10,
  maxVoidLookups: 2,
  /** Records expanded at most; a hostile tree can otherwise grow exponentially. */
  maxNodes: 100,
  maxDepth: 12,
} as const;

export type SpfAnalyzeOptions = Partial<{ -readonly [K in keyof typeof ANALYZE_DEFAULTS]: number }>;

export type SpfNodeStatus = 'ok' | 'none' | 'permerror' | 'temperror' | 'loop' | 'invalid_domain' | 'not_expanded';

export interface SpfTermInfo {
  term: string;
  kind: SpfTerm['kind'];
  /** Counts against the 10-lookup limit. */
  countsLookup: boolean;
  /** Its lookup found nothing (NXDOMAIN or no records). */
  void?: boolean;
  note?: string;
}

export interface SpfTreeNode {
  domain: string;
  via: 'root' | 'include' | 'redirect';
  /** The parent's term that led here, e.g. "~include:_spf.example.com". */
  term?: string;
  status: SpfNodeStatus;
  /** The SPF record evaluated at this domain (the first when several are published). */
  record?: string;
  /** Every "v=spf1" TXT record found at this domain. */
  records: string[];
  terms: SpfTermInfo[];
  /** DNS-querying terms in this record alone. */
  lookups: number;
  voidLookups: number;
  /** This record plus everything below it. */
  totalLookups: number;
  totalVoidLookups: number;
  children: SpfTreeNode[];
  warnings: SpfWarning[];
  error?: string;
}

export interface SpfAnalysis {
  domain: string;
  status: SpfNodeStatus;
  record?: string;
  tree: SpfTreeNode;
  lookups: { main: number; nested: number; total: number; limit: number };
  voidLookups: { total: number; limit: number };
  /** `over_limit` means check_host() would end in permerror for a sender no term matches. */
  verdict: 'ok' | 'over_limit';
  voidVerdict: 'ok' | 'over_limit';
  /** Each loop as the chain of domains, the repeated one last. */
  loops: string[][];
  /** Every node's warnings, root first. */
  warnings: SpfWarning[];
}

interface Ctx {
  resolver: Resolver;
  limits: Required<SpfAnalyzeOptions>;
  nodes: number;
  loops: string[][];
}

export async function analyzeSpf(domain: string, resolver: Resolver, options: SpfAnalyzeOptions = {}): Promise<SpfAnalysis> {
  const limits = { ...ANALYZE_DEFAULTS, ...Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) };
  const ctx: Ctx = { resolver, limits, nodes: 0, loops: [] };
  const tree = await analyzeNode(ctx, domain, 'root', undefined, []);
  const total = tree.totalLookups;
  const warnings = collectWarnings(tree);
  if (total > limits.maxLookups) {
    warnings.unshift(
      warn(SPF_WARNING.LOOKUP_LIMIT, 'error', tree.domain, `${total} DNS lookups (${tree.lookups} in the record, ${total - tree.lookups} nested); the limit is ${limits.maxLookups}, so receivers return permerror`),
    );
  }
  if (tree.totalVoidLookups > limits.maxVoidLookups) {
    warnings.unshift(warn(SPF_WARNING.VOID_LIMIT, 'error', tree.domain, `${tree.totalVoidLookups} lookups find nothing; more than ${limits.maxVoidLookups} is a permerror`));
  }
  return {
    domain: tree.domain,
    status: tree.status,
    ...(tree.record !== undefined ? { record: tree.record } : {}),
    tree,
    lookups: { main: tree.lookups, nested: total - tree.lookups, total, limit: limits.maxLookups },
    voidLookups: { total: tree.totalVoidLookups, limit: limits.maxVoidLookups },
    verdict: total > limits.maxLookups ? 'over_limit' : 'ok',
    voidVerdict: tree.totalVoidLookups > limits.maxVoidLookups ? 'over_limit' : 'ok',
    loops: ctx.loops,
    warnings,
  };
}

function collectWarnings(node: SpfTreeNode): SpfWarning[] {
  return [...node.warnings, ...node.children.flatMap(collectWarnings)];
}

function key(domain: string): string {
  return domain.toLowerCase().replace(/\.$/, '');
}

async function analyzeNode(ctx: Ctx, domain: string, via: SpfTreeNode['via'], term: string | undefined, path: string[]): Promise<SpfTreeNode> {
  const node: SpfTreeNode = {
    domain: domain.replace(/\.$/, ''),
    via,
    ...(term !== undefined ? { term } : {}),
    status: 'ok',
    records: [],
    terms: [],
    lookups: 0,
    voidLookups: 0,
    totalLookups: 0,
    totalVoidLookups: 0,
    children: [],
    warnings: [],
  };
  const finish = (): SpfTreeNode => {
    node.totalLookups = node.lookups + node.children.reduce((n, c) => n + c.totalLookups, 0);
    node.totalVoidLookups = node.voidLookups + node.children.reduce((n, c) => n + c.totalVoidLookups, 0);
    return node;
  };
  const name = checkableDomain(domain);
  if (!name) {
    node.status = via === 'root' ? 'none' : 'invalid_domain';
    node.error = `"${domain}" is not a valid domain name`;
    if (via !== 'root') node.warnings.push(warn(SPF_WARNING.INVALID_TARGET, 'error', path.at(-1) ?? domain, `${term}: ${node.error} (permerror)`, term));
    return finish();
  }
  if (path.includes(key(name))) {
    node.status = 'loop';
    ctx.loops.push([...path, key(name)]);
    node.warnings.push(warn(SPF_WARNING.LOOP, 'error', path.at(-1) ?? name, `${term} loops back to ${name} (${[...path, key(name)].join(' → ')})`, term));
    return finish();
  }
  if (ctx.nodes >= ctx.limits.maxNodes || path.length >= ctx.limits.maxDepth) {
    node.status = 'not_expanded';
    node.warnings.push(warn(SPF_WARNING.NOT_EXPANDED, 'warning', name, `tree too large: ${name} was not expanded`));
    return finish();
  }
  ctx.nodes++;
  const txt = await ctx.resolver.resolve(name, 'TXT');
  if (isDnsFailure(txt.rcode)) {
    node.status = 'temperror';
    node.error = `TXT lookup failed: ${txt.rcode}`;
    node.warnings.push(warn(SPF_WARNING.DNS_ERROR, 'error', name, `${node.error} (temperror)`));
    return finish();
  }
  checkSizes(node, name, txt.answers);
  node.records = selectSpfRecords(txt.answers);
  if (node.records.length === 0) {
    node.status = 'none';
    await checkType99(ctx, node, name);
    if (via !== 'root') node.warnings.push(warn(SPF_WARNING.TARGET_HAS_NO_RECORD, 'error', name, `${term} points to ${name}, which has no SPF record (permerror)`, term));
    return finish();
  }
  node.record = node.records[0];
  if (node.records.length > 1) {
    node.status = 'permerror';
    node.warnings.push(warn(SPF_WARNING.MULTIPLE_RECORDS, 'error', name, `${node.records.length} SPF records published; receivers return permerror`));
    return finish();
  }
  const { record, errors } = parseSpfRecord(node.record as string);
  for (const e of errors) {
    node.status = 'permerror';
    const code = e.code === SPF_ERROR.UNKNOWN_MECHANISM ? SPF_WARNING.UNKNOWN_MECHANISM : SPF_WARNING.SYNTAX_ERROR;
    node.warnings.push(warn(code, 'error', name, e.message, e.term));
  }
  await analyzeTerms(ctx, node, name, record, [...path, key(name)]);
  return finish();
}

async function analyzeTerms(ctx: Ctx, node: SpfTreeNode, name: string, record: SpfRecord, path: string[]): Promise<void> {
  const hasAll = record.mechanisms.some((m) => m.kind === 'all');
  const afterAll: string[] = [];
  let seenAll = false;
  for (const t of record.terms) {
    const info: SpfTermInfo = { term: t.raw, kind: t.kind, countsLookup: false };
    node.terms.push(info);
    if (seenAll && t.kind !== 'exp' && t.kind !== 'unknown') afterAll.push(t.raw);
    switch (t.kind) {
      case 'all':
        seenAll = true;
        if (t.qualifier === '+') node.warnings.push(warn(SPF_WARNING.PLUS_ALL, 'error', name, `"${t.raw}" authorizes every host on the internet`, t.raw));
        break;
      case 'ptr':
        countLookup(node, info);
        info.note = 'depends on the client address; not resolved here';
        node.warnings.push(warn(SPF_WARNING.PTR_USED, 'warning', name, `"${t.raw}": ptr is slow and unreliable; RFC 7208 5.5 says not to use it`, t.raw));
        break;
      case 'a':
      case 'mx':
      case 'exists':
        countLookup(node, info);
        await probeTarget(ctx, node, name, t, info);
        break;
      case 'include':
      case 'redirect': {
        if (t.kind === 'redirect' && hasAll) {
          info.note = 'ignored: the record has an "all" mechanism';
          node.warnings.push(warn(SPF_WARNING.REDIRECT_IGNORED, 'warning', name, `"${t.raw}" is ignored because the record contains "all"`, t.raw));
          break;
        }
        countLookup(node, info);
        if (t.domainSpec.hasMacros) {
          info.note = 'target built from macros; not expanded';
          break;
        }
        node.children.push(await analyzeNode(ctx, t.domainSpec.text, t.kind, t.raw, path));
        break;
      }
      default:
        break;
    }
  }
  if (afterAll.length > 0) {
    node.warnings.push(warn(SPF_WARNING.TERMS_AFTER_ALL, 'warning', name, `terms after "all" are never used: ${afterAll.join(' ')}`));
  }
}

function countLookup(node: SpfTreeNode, info: SpfTermInfo): void {
  node.lookups++;
  info.countsLookup = true;
}

/** Resolves a/mx/exists targets (when macro-free) to count void lookups and spot MX excess. */
async function probeTarget(ctx: Ctx, node: SpfTreeNode, name: string, t: Extract<SpfTerm, { kind: 'a' | 'mx' | 'exists' }>, info: SpfTermInfo): Promise<void> {
  if (t.domainSpec?.hasMacros) {
    info.note = 'target built from macros; not resolved here';
    return;
  }
  const target = (t.domainSpec?.text ?? name).replace(/\.$/, '');
  const types = t.kind === 'mx' ? (['MX'] as const) : t.kind === 'exists' ? (['A'] as const) : (['A', 'AAAA'] as const);
  const results = await Promise.all(types.map((type) => ctx.resolver.resolve(target, type)));
  const failed = results.find((r) => isDnsFailure(r.rcode));
  if (failed) {
    info.note = `lookup failed: ${failed.rcode}`;
    node.warnings.push(warn(SPF_WARNING.DNS_ERROR, 'warning', name, `"${t.raw}": ${failed.type} lookup of ${target} failed (${failed.rcode})`, t.raw));
    return;
  }
  if (results.every((r) => r.answers.length === 0)) {
    info.void = true;
    node.voidLookups++;
    node.warnings.push(warn(SPF_WARNING.VOID_LOOKUP, 'warning', name, `"${t.raw}": ${target} has no ${types.join('/')} records`, t.raw));
  }
  const mx = results[0];
  if (t.kind === 'mx' && mx && mx.answers.length > 10) {
    node.warnings.push(warn(SPF_WARNING.TOO_MANY_MX, 'error', name, `"${t.raw}": ${target} has ${mx.answers.length} MX records; more than 10 is a permerror`, t.raw));
  }
}

/** RFC 7208 3.3/3.4: strings hold 255 bytes at most, and records should stay under 512. */
function checkSizes(node: SpfTreeNode, name: string, answers: readonly { type: string; strings?: string[] }[]): void {
  for (const rr of answers) {
    if (rr.type !== 'TXT' || !rr.strings) continue;
    const text = rr.strings.join('');
    if (!isSpfRecordText(text)) continue;
    if (rr.strings.some((s) => Buffer.byteLength(s, 'utf8') > 255)) {
      node.warnings.push(warn(SPF_WARNING.STRING_TOO_LONG, 'error', name, 'a character-string of the SPF record is longer than 255 bytes'));
    }
    const bytes = Buffer.byteLength(text, 'utf8');
    if (bytes > 512) node.warnings.push(warn(SPF_WARNING.RECORD_TOO_LONG, 'warning', name, `the SPF record is ${bytes} bytes; keep it under 512`));
  }
}

/** The obsolete SPF RR type (99) alone does not publish a policy any more (RFC 7208 3.1). */
async function checkType99(ctx: Ctx, node: SpfTreeNode, name: string): Promise<void> {
  const spf = await ctx.resolver.resolve(name, 'SPF');
  const published = spf.answers.some((rr) => rr.type === 'SPF' && isSpfRecordText(rr.strings.join('')));
  if (published) {
    node.warnings.push(warn(SPF_WARNING.SPF_TYPE99_ONLY, 'error', name, 'the policy is published only as the obsolete SPF record type (99); publish it as TXT'));
  }
}
