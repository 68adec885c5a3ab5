// check_host() (RFC 7208 4-6): evaluates a sender against SPF policies over any Resolver.
import { isDnsFailure, type Resolver, type ResolveResult, type RrType } from '../resolver/types.ts';
import { checkableDomain, isSameOrSubdomain, toQueryName } from './domain.ts';
import { dottedIp, formatIp, inPrefix, parseIp, parseIp4Network, parseIp6Network, reverseName, sameIp, type IpAddress } from './ip.ts';
import { expandMacros, parseMacroString, type MacroValues } from './macro.ts';
import { parseSpfRecord, type DomainSpec, type SpfMechanism, type Qualifier } from './parser.ts';
import { selectSpfRecords } from './select.ts';

export type SpfResult = 'pass' | 'fail' | 'softfail' | 'neutral' | 'none' | 'permerror' | 'temperror';

export interface CheckHostInput {
  /** The SMTP client's address (IPv4, IPv6, or IPv4-mapped IPv6). */
  ip: string;
  /** MAIL FROM address; empty for bounces, in which case postmaster@<helo> is checked. */
  sender?: string;
  helo?: string;
  /** Domain to check; defaults to the sender's domain. */
  domain?: string;
}

/** Limits and texts; the defaults are RFC 7208's. */
export const CHECK_HOST_DEFAULTS = {
  /** Terms causing DNS lookups (include, a, mx, ptr, exists, redirect) per evaluation (4.6.4). */
  maxLookups: 10,
  /** Lookups answering NXDOMAIN or no records (4.6.4). */
  maxVoidLookups: 2,
  /** MX records one "mx" may look at before it is a permerror (4.6.4). */
  maxMxNames: 10,
  /** PTR names looked at by "ptr" and %{p}; the rest are ignored (4.6.4). */
  maxPtrNames: 10,
  /** Overall time budget; the RFC asks for at least 20 s (4.6.4). */
  maxEvaluationMs: 20_000,
  /** %{r}: the receiving host's name. */
  receiver: 'unknown',
} as const;

export interface CheckHostOptions {
  maxLookups?: number;
  maxVoidLookups?: number;
  maxMxNames?: number;
  maxPtrNames?: number;
  maxEvaluationMs?: number;
  receiver?: string;
  /** Explanation for "fail" when the policy has no usable exp=. */
  defaultExplanation?: string;
  /** Seconds clock for %{t}. */
  nowS?: () => number;
}

export interface CheckHostResult {
  result: SpfResult;
  /** The domain evaluated first. */
  domain: string;
  /** The term that decided the result (e.g. "-all", "include:_spf.example.com"). */
  mechanism?: string;
  explanation?: string;
  /** Why the result is permerror, temperror or none. */
  reason?: string;
  /** DNS-querying terms evaluated, out of maxLookups. */
  lookups: number;
  voidLookups: number;
}

/** Ends evaluation with permerror or temperror from anywhere in the recursion. */
class Abort extends Error {
  readonly result: 'permerror' | 'temperror';
  constructor(result: 'permerror' | 'temperror', message: string) {
    super(message);
    this.result = result;
  }
}

interface State {
  resolver: Resolver;
  ip: IpAddress;
  sender: string;
  local: string;
  senderDomain: string;
  helo: string;
  limits: Required<Omit<CheckHostOptions, 'defaultExplanation' | 'nowS'>>;
  nowS: () => number;
  deadlineMs: number;
  lookups: number;
  voids: number;
  validated?: Promise<{ names: string[]; isVoid: boolean }>;
}

interface Outcome {
  result: SpfResult;
  mechanism?: string;
  /** The exp= of the record whose mechanism gave "fail", with that record's domain. */
  exp?: { spec: DomainSpec; domain: string };
  reason?: string;
}

const QUALIFIER_RESULT: Record<Qualifier, SpfResult> = { '+': 'pass', '-': 'fail', '~': 'softfail', '?': 'neutral' };

export async function checkHost(input: CheckHostInput, resolver: Resolver, options: CheckHostOptions = {}): Promise<CheckHostResult> {
  const helo = input.helo ?? 'unknown';
  const identity = input.sender && input.sender !== '' ? input.sender : `postmaster@${helo}`;
  const at = identity.lastIndexOf('@');
  const local = at > 0 ? identity.slice(0, at) : 'postmaster'; // 4.3: no local-part means "postmaster"
  const senderDomain = at >= 0 ? identity.slice(at + 1) : identity;
  const domainInput = input.domain ?? senderDomain;
  const ip = parseIp(input.ip);
  const limits = { ...CHECK_HOST_DEFAULTS, ...definedOnly(options) };
  const state: State = {
    resolver,
    ip: ip ?? { version: 4, bytes: new Uint8Array(4) },
    sender: `${local}@${senderDomain}`,
    local,
    senderDomain,
    helo,
    limits,
    nowS: options.nowS ?? (() => Math.floor(Date.now() / 1000)),
    deadlineMs: Date.now() + limits.maxEvaluationMs,
    lookups: 0,
    voids: 0,
  };
  const done = (o: Outcome, explanation?: string): CheckHostResult => ({
    result: o.result,
    domain: domainInput,
    ...(o.mechanism ? { mechanism: o.mechanism } : {}),
    ...(explanation !== undefined ? { explanation } : {}),
    ...(o.reason ? { reason: o.reason } : {}),
    lookups: state.lookups,
    voidLookups: state.voids,
  });
  if (!ip) return done({ result: 'permerror', reason: `"${input.ip}" is not an IP address` });
  const domain = checkableDomain(domainInput);
  if (!domain) return done({ result: 'none', reason: `"${domainInput}" is not a domain SPF can check` });
  let outcome: Outcome;
  try {
    outcome = await evaluateDomain(state, domain);
  } catch (err) {
    if (!(err instanceof Abort)) throw err;
    return done({ result: err.result, reason: err.message });
  }
  if (outcome.result !== 'fail') return done(outcome);
  const explanation = (outcome.exp && (await explain(state, outcome.exp))) ?? options.defaultExplanation;
  return done(outcome, explanation);
}

function definedOnly(o: CheckHostOptions): Partial<State['limits']> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined && k in CHECK_HOST_DEFAULTS) out[k] = v;
  return out as Partial<State['limits']>;
}

async function evaluateDomain(state: State, domain: string): Promise<Outcome> {
  const txt = await query(state, domain, 'TXT', false);
  const records = selectSpfRecords(txt.answers);
  if (records.length === 0) return { result: 'none', reason: `no SPF record at ${domain}` };
  if (records.length > 1) throw new Abort('permerror', `${domain} publishes ${records.length} SPF records`);
  const { record, errors } = parseSpfRecord(records[0] as string);
  const first = errors[0];
  if (first) throw new Abort('permerror', `${domain}: ${first.message}`);
  for (const mechanism of record.mechanisms) {
    if (await matches(state, mechanism, domain)) {
      const result = QUALIFIER_RESULT[mechanism.qualifier];
      const exp = result === 'fail' && record.exp ? { spec: record.exp.domainSpec, domain } : undefined;
      return { result, mechanism: mechanism.raw, ...(exp ? { exp } : {}) };
    }
  }
  // 6.1: redirect applies only when nothing matched, and never alongside "all".
  if (record.redirect && !record.mechanisms.some((m) => m.kind === 'all')) {
    countLookup(state);
    const target = await expandTarget(state, record.redirect.domainSpec, domain);
    if (!target) throw new Abort('permerror', `${domain}: redirect target "${record.redirect.domainSpec.text}" is not a valid domain`);
    const inner = await evaluateDomain(state, target);
    if (inner.result === 'none') throw new Abort('permerror', `${domain}: redirect target ${target} has no SPF record`);
    return inner;
  }
  return { result: 'neutral' };
}

async function matches(state: State, m: SpfMechanism, domain: string): Promise<boolean> {
  switch (m.kind) {
    case 'all':
      return true;
    case 'ip4':
    case 'ip6': {
      const network = m.kind === 'ip4' ? parseIp4Network(m.address) : parseIp6Network(m.address);
      return state.ip.version === (m.kind === 'ip4' ? 4 : 6) && !!network && inPrefix(state.ip.bytes, network, m.prefix);
    }
    case 'a':
    case 'mx': {
      countLookup(state);
      const target = m.domainSpec ? await expandTarget(state, m.domainSpec, domain) : domain;
      if (!target) return false;
      const prefix = state.ip.version === 4 ? m.cidr4 : m.cidr6;
      if (m.kind === 'a') return addressMatches(state, await query(state, target, addressType(state), true), prefix);
      const mx = await query(state, target, 'MX', true);
      if (mx.answers.length > state.limits.maxMxNames) {
        throw new Abort('permerror', `mx:${target} has ${mx.answers.length} MX records (limit ${state.limits.maxMxNames})`);
      }
      // A null MX ("." or empty exchange, RFC 7505) names no host to look up.
      const hosts = mx.answers.flatMap((rr) => (rr.type === 'MX' && rr.exchange !== '' && rr.exchange !== '.' ? [rr.exchange] : []));
      const answers = await Promise.all(hosts.map((h) => query(state, h, addressType(state), false)));
      return answers.some((a) => addressMatches(state, a, prefix));
    }
    case 'ptr': {
      countLookup(state);
      const target = m.domainSpec ? await expandTarget(state, m.domainSpec, domain) : domain;
      const validated = await validatedNames(state);
      if (validated.isVoid) countVoid(state);
      return !!target && validated.names.some((name) => isSameOrSubdomain(name, target));
    }
    case 'exists': {
      countLookup(state);
      const target = await expandTarget(state, m.domainSpec, domain);
      // 5.7: always an A query, whatever the client's address family.
      return !!target && (await query(state, target, 'A', true)).answers.length > 0;
    }
    case 'include': {
      countLookup(state);
      const target = await expandTarget(state, m.domainSpec, domain);
      if (!target) throw new Abort('permerror', `include target "${m.domainSpec.text}" is not a valid domain`);
      const inner = await evaluateDomain(state, target);
      // 5.2: pass matches; fail/softfail/neutral do not; none is a permerror; errors propagate.
      if (inner.result === 'none') throw new Abort('permerror', `include:${target} has no SPF record`);
      return inner.result === 'pass';
    }
  }
}

function addressType(state: State): RrType {
  return state.ip.version === 4 ? 'A' : 'AAAA';
}

function addressMatches(state: State, result: ResolveResult, prefix: number): boolean {
  return result.answers.some((rr) => {
    if (rr.type !== 'A' && rr.type !== 'AAAA') return false;
    const ip = parseIp(rr.address);
    return !!ip && ip.version === state.ip.version && inPrefix(state.ip.bytes, ip.bytes, prefix);
  });
}

function countLookup(state: State): void {
  state.lookups++;
  if (state.lookups > state.limits.maxLookups) {
    throw new Abort('permerror', `more than ${state.limits.maxLookups} DNS-querying terms (RFC 7208 4.6.4)`);
  }
}

function countVoid(state: State): void {
  state.voids++;
  if (state.voids > state.limits.maxVoidLookups) {
    throw new Abort('permerror', `more than ${state.limits.maxVoidLookups} void lookups (RFC 7208 4.6.4)`);
  }
}

/** A lookup whose DNS failure ends evaluation with temperror (RFC 7208 4.4, 5). */
async function query(state: State, name: string, type: RrType, countsAsVoid: boolean): Promise<ResolveResult> {
  if (Date.now() > state.deadlineMs) throw new Abort('temperror', 'SPF evaluation exceeded its time limit');
  const result = await state.resolver.resolve(name, type);
  if (isDnsFailure(result.rcode)) throw new Abort('temperror', `DNS ${result.rcode} for ${name}/${type}`);
  if (countsAsVoid && result.answers.length === 0) countVoid(state);
  return result;
}

/**
 * The client's validated host names (5.5): PTR names (the first maxPtrNames) whose forward
 * lookup contains the client address. DNS errors only drop the name concerned. Shared by every
 * "ptr" and %{p} of one evaluation.
 */
function validatedNames(state: State): Promise<{ names: string[]; isVoid: boolean }> {
  state.validated ??= (async () => {
    const ptr = await state.resolver.resolve(reverseName(state.ip), 'PTR');
    if (isDnsFailure(ptr.rcode)) return { names: [], isVoid: false };
    const names = ptr.answers.slice(0, state.limits.maxPtrNames).flatMap((rr) => (rr.type === 'PTR' ? [rr.target] : []));
    const checks = await Promise.all(
      names.map(async (name) => {
        const forward = toQueryName(name) ? await state.resolver.resolve(name, addressType(state)) : null;
        return !!forward && forward.answers.some((rr) => (rr.type === 'A' || rr.type === 'AAAA') && sameIpText(state.ip, rr.address));
      }),
    );
    return { names: names.filter((_, i) => checks[i]), isVoid: ptr.answers.length === 0 };
  })();
  return state.validated;
}

function sameIpText(ip: IpAddress, text: string): boolean {
  const other = parseIp(text);
  return !!other && sameIp(ip, other);
}

function macroValues(state: State, domain: string): MacroValues {
  return {
    s: state.sender,
    l: state.local,
    o: state.senderDomain,
    d: domain,
    i: dottedIp(state.ip),
    v: state.ip.version === 4 ? 'in-addr' : 'ip6',
    h: state.helo,
    c: formatIp(state.ip),
    r: state.limits.receiver,
    t: String(state.nowS()),
    // 7.3: prefer <domain> itself, then a subdomain of it, then any validated name.
    p: async () => {
      const { names } = await validatedNames(state);
      return (
        names.find((n) => n.toLowerCase() === domain.toLowerCase()) ?? names.find((n) => isSameOrSubdomain(n, domain)) ?? names[0] ?? 'unknown'
      );
    },
  };
}

async function expandTarget(state: State, spec: DomainSpec, domain: string): Promise<string | null> {
  const expanded = spec.hasMacros ? await expandMacros(spec.tokens, macroValues(state, domain)) : spec.text;
  return toQueryName(expanded);
}

/** 6.2: the explanation; any problem (DNS, record count, syntax, non-ASCII) means "none". */
async function explain(state: State, exp: { spec: DomainSpec; domain: string }): Promise<string | undefined> {
  try {
    const name = await expandTarget(state, exp.spec, exp.domain);
    if (!name) return undefined;
    const txt = await state.resolver.resolve(name, 'TXT');
    if (txt.rcode !== 'NOERROR' || txt.answers.length !== 1) return undefined;
    const only = txt.answers[0];
    if (!only || only.type !== 'TXT') return undefined;
    const parsed = parseMacroString(only.strings.join(''), 'explain');
    if (!parsed.ok) return undefined;
    return await expandMacros(parsed.tokens, macroValues(state, exp.domain));
  } catch {
    return undefined;
  }
}
