// SPF record syntax (RFC 7208 4.5, 4.6, 5, 6, 7). The parser reports every problem it finds,
// each with a code, the offending term and its offset, so a record validator can list them all;
// the evaluator only needs to know that there is at least one (permerror).
import { parseMacroString, type MacroToken } from './macro.ts';
import { isTopLabel } from './domain.ts';
import { parseIp4Network, parseIp6Network } from './ip.ts';

export const SPF_ERROR = {
  NOT_SPF1: 'not_spf1',
  UNKNOWN_MECHANISM: 'unknown_mechanism',
  UNEXPECTED_ARGUMENT: 'unexpected_argument',
  MISSING_DOMAIN: 'missing_domain',
  INVALID_DOMAIN_SPEC: 'invalid_domain_spec',
  INVALID_MACRO: 'invalid_macro',
  INVALID_CIDR: 'invalid_cidr',
  INVALID_IP4: 'invalid_ip4',
  INVALID_IP6: 'invalid_ip6',
  DUPLICATE_MODIFIER: 'duplicate_modifier',
} as const;
export type SpfErrorCode = (typeof SPF_ERROR)[keyof typeof SPF_ERROR];

export interface SpfSyntaxError {
  code: SpfErrorCode;
  message: string;
  term?: string;
  /** Character offset of the term in the record text. */
  offset?: number;
}

export type Qualifier = '+' | '-' | '~' | '?';

export interface DomainSpec {
  text: string;
  tokens: MacroToken[];
  hasMacros: boolean;
}

type TermBase = { raw: string; offset: number };
type MechBase = TermBase & { qualifier: Qualifier; explicitQualifier: boolean };

/** One union member per kind, so `switch (m.kind)` narrows precisely. */
type PerKind<K extends string, Base, Fields> = K extends string ? Base & { kind: K } & Fields : never;

export type SpfMechanism =
  | PerKind<'all', MechBase, object>
  | PerKind<'include' | 'exists', MechBase, { domainSpec: DomainSpec }>
  | PerKind<'a' | 'mx', MechBase, { domainSpec?: DomainSpec; cidr4: number; cidr6: number }>
  | PerKind<'ptr', MechBase, { domainSpec?: DomainSpec }>
  | PerKind<'ip4' | 'ip6', MechBase, { address: string; prefix: number }>;

export type SpfModifier =
  | PerKind<'redirect' | 'exp', TermBase, { domainSpec: DomainSpec }>
  | PerKind<'unknown', TermBase, { name: string; value: string }>;

export type SpfTerm = SpfMechanism | SpfModifier;

export interface SpfRecord {
  text: string;
  /** Every term that parsed, in record order. */
  terms: SpfTerm[];
  mechanisms: SpfMechanism[];
  redirect?: Extract<SpfModifier, { kind: 'redirect' }>;
  exp?: Extract<SpfModifier, { kind: 'exp' }>;
  unknownModifiers: Extract<SpfModifier, { kind: 'unknown' }>[];
}

export interface SpfParseResult {
  record: SpfRecord;
  errors: SpfSyntaxError[];
}

const VERSION = /^v=spf1(?= |$)/i;
const MODIFIER = /^([a-z][a-z0-9_.-]*)=([\s\S]*)$/i;
const MECHANISMS = ['all', 'include', 'a', 'mx', 'ptr', 'ip4', 'ip6', 'exists'] as const;
type MechanismKind = (typeof MECHANISMS)[number];

/** True when a TXT string is an SPF version 1 record ("v=spf1" then a space or the end). */
export function isSpfRecordText(text: string): boolean {
  return VERSION.test(text);
}

export function parseSpfRecord(text: string): SpfParseResult {
  const record: SpfRecord = { text, terms: [], mechanisms: [], unknownModifiers: [] };
  const errors: SpfSyntaxError[] = [];
  if (!VERSION.test(text)) {
    errors.push({ code: SPF_ERROR.NOT_SPF1, message: 'record does not start with "v=spf1" followed by a space or the end' });
    return { record, errors };
  }
  // Terms are separated by one or more spaces (only 0x20); anything else stays inside a term.
  const termPattern = / *([^ ]+)/g;
  termPattern.lastIndex = 6;
  for (let m = termPattern.exec(text); m; m = termPattern.exec(text)) {
    const raw = m[1] ?? '';
    const offset = m.index + m[0].length - raw.length;
    const parsed = parseTerm(raw, offset);
    if ('error' in parsed) {
      errors.push({ ...parsed.error, term: raw, offset });
      continue;
    }
    const term = parsed.term;
    if (term.kind === 'redirect' || term.kind === 'exp') {
      if (record[term.kind]) {
        errors.push({ code: SPF_ERROR.DUPLICATE_MODIFIER, message: `"${term.kind}" appears more than once`, term: raw, offset });
        continue;
      }
      if (term.kind === 'redirect') record.redirect = term;
      else record.exp = term;
    } else if (term.kind === 'unknown') record.unknownModifiers.push(term);
    else record.mechanisms.push(term);
    record.terms.push(term);
  }
  return { record, errors };
}

type TermParse = { term: SpfTerm } | { error: Omit<SpfSyntaxError, 'term' | 'offset'> };

function fail(code: SpfErrorCode, message: string): TermParse {
  return { error: { code, message } };
}

function parseTerm(raw: string, offset: number): TermParse {
  const modifier = MODIFIER.exec(raw);
  if (modifier) {
    const name = modifier[1] ?? '';
    const value = modifier[2] ?? '';
    const lower = name.toLowerCase();
    if (lower === 'redirect' || lower === 'exp') {
      const spec = parseDomainSpec(value, `${lower}=`);
      if ('error' in spec) return spec;
      return { term: { kind: lower, raw, offset, domainSpec: spec.spec } };
    }
    const macro = parseMacroString(value, 'modifier');
    if (!macro.ok) return fail(SPF_ERROR.INVALID_MACRO, `modifier "${name}": ${macro.error}`);
    return { term: { kind: 'unknown', raw, offset, name, value } };
  }
  const explicitQualifier = /^[+\-~?]/.test(raw);
  const qualifier = (explicitQualifier ? raw[0] : '+') as Qualifier;
  const body = explicitQualifier ? raw.slice(1) : raw;
  const nameEnd = body.search(/[:/]/);
  const name = (nameEnd < 0 ? body : body.slice(0, nameEnd)).toLowerCase();
  const rest = nameEnd < 0 ? '' : body.slice(nameEnd);
  if (!(MECHANISMS as readonly string[]).includes(name)) {
    return fail(SPF_ERROR.UNKNOWN_MECHANISM, `unknown mechanism "${printable(nameEnd < 0 ? body : body.slice(0, nameEnd))}"`);
  }
  const base = { raw, offset, qualifier, explicitQualifier };
  return parseMechanism(name as MechanismKind, rest, base);
}

function parseMechanism(kind: MechanismKind, rest: string, base: MechBase): TermParse {
  switch (kind) {
    case 'all':
      if (rest !== '') return fail(SPF_ERROR.UNEXPECTED_ARGUMENT, '"all" takes no argument');
      return { term: { ...base, kind } };
    case 'include':
    case 'exists': {
      if (!rest.startsWith(':')) return fail(SPF_ERROR.MISSING_DOMAIN, `"${kind}" needs ":" and a domain`);
      const spec = parseDomainSpec(rest.slice(1), `${kind}:`);
      if ('error' in spec) return spec;
      return { term: { ...base, kind, domainSpec: spec.spec } };
    }
    case 'ptr': {
      if (rest === '') return { term: { ...base, kind } };
      if (!rest.startsWith(':')) return fail(SPF_ERROR.UNEXPECTED_ARGUMENT, '"ptr" takes only ":" and a domain (no CIDR length)');
      const spec = parseDomainSpec(rest.slice(1), 'ptr:');
      if ('error' in spec) return spec;
      return { term: { ...base, kind, domainSpec: spec.spec } };
    }
    case 'a':
    case 'mx': {
      let domainText: string | undefined;
      let cidrText = rest;
      if (rest.startsWith(':')) {
        // The dual CIDR length is the shortest suffix that parses as one; the domain-spec
        // itself may contain "/" (RFC 7208 7.1 allows any visible character but "%").
        const m = /^([\s\S]*?)((?:\/\d+)?(?:\/\/\d+)?)$/.exec(rest.slice(1));
        domainText = m?.[1] ?? '';
        cidrText = m?.[2] ?? '';
      }
      const cidr = parseDualCidr(cidrText);
      if ('error' in cidr) return cidr;
      if (domainText === undefined) return { term: { ...base, kind, ...cidr } };
      const spec = parseDomainSpec(domainText, `${kind}:`);
      if ('error' in spec) return spec;
      return { term: { ...base, kind, domainSpec: spec.spec, ...cidr } };
    }
    case 'ip4':
    case 'ip6': {
      const m = /^:([^/]*)(\/[\s\S]*)?$/.exec(rest);
      if (!m) return fail(kind === 'ip4' ? SPF_ERROR.INVALID_IP4 : SPF_ERROR.INVALID_IP6, `"${kind}" needs ":" and an address with an optional "/length"`);
      const address = m[1] ?? '';
      const cidr = m[2]?.slice(1);
      const max = kind === 'ip4' ? 32 : 128;
      const ok = kind === 'ip4' ? parseIp4Network(address) : parseIp6Network(address);
      if (!ok) return fail(kind === 'ip4' ? SPF_ERROR.INVALID_IP4 : SPF_ERROR.INVALID_IP6, `"${printable(address)}" is not a valid ${kind === 'ip4' ? 'IPv4' : 'IPv6'} address`);
      const prefix = cidr === undefined ? max : cidrLength(cidr, max);
      if (prefix === null) {
        const dual = cidr?.startsWith('/') ? ` (${kind} takes one length; "//" is only for a and mx)` : '';
        return fail(SPF_ERROR.INVALID_CIDR, `"/${printable(cidr ?? '')}" is not a valid prefix length (0-${max})${dual}`);
      }
      return { term: { ...base, kind, address, prefix } };
    }
  }
}

/** Term text for messages, with control and non-ASCII characters shown as \u{...}. */
function printable(text: string): string {
  return text.replace(/[^\x20-\x7e]/gu, (ch) => `\\u{${(ch.codePointAt(0) ?? 0).toString(16)}}`);
}

/** A decimal prefix length without leading zeros, at most `max`. */
function cidrLength(text: string, max: number): number | null {
  if (!/^(?:0|[1-9]\d{0,2})$/.test(text)) return null;
  const n = Number(text);
  return n <= max ? n : null;
}

function parseDualCidr(text: string): { cidr4: number; cidr6: number } | { error: Omit<SpfSyntaxError, 'term' | 'offset'> } {
  const m = /^(?:\/([^/]*))?(?:\/\/([^/]*))?$/.exec(text);
  if (!m) return { error: { code: SPF_ERROR.INVALID_CIDR, message: `"${text}" is not a CIDR length ("/n", "//n" or "/n//n")` } };
  const cidr4 = m[1] === undefined ? 32 : cidrLength(m[1], 32);
  const cidr6 = m[2] === undefined ? 128 : cidrLength(m[2], 128);
  if (cidr4 === null) return { error: { code: SPF_ERROR.INVALID_CIDR, message: `"/${m[1]}" is not a valid IPv4 prefix length (0-32)` } };
  if (cidr6 === null) return { error: { code: SPF_ERROR.INVALID_CIDR, message: `"//${m[2]}" is not a valid IPv6 prefix length (0-128)` } };
  return { cidr4, cidr6 };
}

/** domain-spec = macro-string domain-end; domain-end = ( "." toplabel [ "." ] ) / macro-expand */
export function parseDomainSpec(text: string, where: string): { spec: DomainSpec } | { error: Omit<SpfSyntaxError, 'term' | 'offset'> } {
  if (text === '') return { error: { code: SPF_ERROR.MISSING_DOMAIN, message: `${where} has an empty domain` } };
  const parsed = parseMacroString(text, 'domain');
  if (!parsed.ok) return { error: { code: SPF_ERROR.INVALID_MACRO, message: `${where}${text}: ${parsed.error}` } };
  const last = parsed.tokens[parsed.tokens.length - 1];
  const hasMacros = parsed.tokens.some((t) => t.kind !== 'literal');
  if (last && last.kind === 'literal') {
    const t = last.text.endsWith('.') ? last.text.slice(0, -1) : last.text;
    const dot = t.lastIndexOf('.');
    const top = t.slice(dot + 1);
    if (dot < 0 || !isTopLabel(top)) {
      const why = /^\d+$/.test(top) ? ' (an IP address belongs in ip4:/ip6:)' : '';
      return {
        error: { code: SPF_ERROR.INVALID_DOMAIN_SPEC, message: `${where}${text}: must end in "." and a valid top-level label, or a macro${why}` },
      };
    }
  }
  return { spec: { text, tokens: parsed.tokens, hasMacros } };
}
