// dns_lookup: the live record set of a domain (or the reverse name of an IP), with the email
// gateway, DMARC policy, detected technology and DNSSEC status, and whether the MX hosts have an
// address. Every lookup runs in parallel (the MX hosts' addresses after the MX answer). A failed
// lookup is reported as failed (record null, `errors`, "lookup failed" in the summary), never
// as an empty record set.
import { checkDmarc, type DmarcCheck } from '../dmarc/check.ts';
import { detectTechnology, spfTargets, type DetectedTechnology } from '../dns/detect.ts';
import { dnssecStatus, type DnssecFacts } from '../dns/dnssec.ts';
import { emailGateway, mxWithProviders, type EmailGateway, type MxWithProvider } from '../dns/gateway.ts';
import { mxFindings, mxHostAddresses, type MxFinding, type MxHostAddresses } from '../dns/mx-hosts.ts';
import { reverseName } from '../dns/reverse.ts';
import { SRV_SERVICES } from '../dns/srv-services.ts';
import { isDnsFailure, txtJoin, type Rcode, type ResolveResult, type RrType } from '../resolver/types.ts';
import { selectSpfRecords } from '../spf/select.ts';
import { checkTarget } from '../target.ts';
import type { ToolContext } from './context.ts';
import { TOOL_DEFAULTS } from './defaults.ts';
import { clip, formatReport, lines, list, makeMeta, plural } from './output.ts';
import type { ToolInput, ToolOutput } from './types.ts';

const APEX_TYPES = ['A', 'AAAA', 'MX', 'NS', 'TXT', 'SOA', 'CNAME', 'CAA', 'DNSKEY', 'DS'] as const satisfies readonly RrType[];
type ApexType = (typeof APEX_TYPES)[number];
type Truncated = Record<string, { shown: number; total: number }>;

/** Everything dns_lookup asks the DNS about a domain. */
interface DomainAnswers {
  /** In APEX_TYPES order. */
  apexList: ResolveResult<ApexType>[];
  r: { [T in ApexType]: ResolveResult<T> };
  /** In SRV_SERVICES order. */
  srvList: ResolveResult<'SRV'>[];
  /** The CNAME of www.<domain>; not asked when the domain is itself a www name. */
  www: ResolveResult<'CNAME'> | undefined;
  dmarc: DmarcCheck;
  mxHosts: MxHostAddresses[];
}

interface SrvEntry {
  service: string;
  priority: number;
  weight: number;
  port: number;
  target: string;
}

/** What the answers say about the domain, before it is clipped and worded. */
interface DomainFacts {
  mx: MxWithProvider[];
  gateway: EmailGateway | null;
  mxIssues: MxFinding[];
  txt: string[];
  cnameChain: string[];
  srv: SrvEntry[];
  dnssec: DnssecFacts;
  technology: DetectedTechnology[];
}

/** A looked-up type that failed, by label ("MX", "SRV _sip._tcp"), with its rcode. */
type Failures = Record<string, Rcode>;

export async function dnsLookup(ctx: ToolContext, input: ToolInput): Promise<ToolOutput> {
  const target = checkTarget(input.target, { allowIp: true, allowPrivate: ctx.settings.allowPrivateTargets });
  if (target.kind === 'ip') return reverseLookup(ctx, target.ip);
  const answers = await gatherDomain(ctx, target.domain);
  return domainOutput(ctx, target.domain, answers, input.detail === 'full');
}

/** The apex types, the SRV services, www's CNAME and DMARC in parallel; then the MX hosts' addresses. */
async function gatherDomain(ctx: ToolContext, domain: string): Promise<DomainAnswers> {
  const apexLookups = Promise.all(APEX_TYPES.map((t) => ctx.resolver.resolve(domain, t)));
  const srvLookups = Promise.all(SRV_SERVICES.map((s) => ctx.resolver.resolve(`${s}.${domain}`, 'SRV')));
  const wwwLookup = domain.startsWith('www.') ? Promise.resolve(undefined) : ctx.resolver.resolve(`www.${domain}`, 'CNAME');
  const [apexList, srvList, www, dmarc] = await Promise.all([apexLookups, srvLookups, wwwLookup, checkDmarc(domain, ctx.resolver)]);
  const r = Object.fromEntries(APEX_TYPES.map((t, i) => [t, apexList[i]])) as DomainAnswers['r'];
  const mxHosts = await mxHostAddresses(r.MX.answers, ctx.resolver, TOOL_DEFAULTS.mxHostsChecked);
  return { apexList, r, srvList, www, dmarc, mxHosts };
}

function domainOutput(ctx: ToolContext, domain: string, answers: DomainAnswers, full: boolean): ToolOutput {
  const facts = domainFacts(answers);
  const { records, truncated } = recordSet(answers.r, facts, full);
  const failures = lookupFailures(answers.apexList, answers.srvList);
  const result = displayResult(records, failures, facts, answers.dmarc, truncated);
  const exists = !answers.apexList.every((res) => res.rcode === 'NXDOMAIN');
  const findings = [...facts.mxIssues.map((f) => f.message), ...Object.entries(failures).map(([label, rcode]) => `${label} lookup failed (${rcode})`)];
  return {
    summary: domainSummary(domain, answers, records, failures, facts, exists),
    result,
    data: domainData(ctx, domain, answers, facts, records, failures, truncated, exists),
    report: formatReport(`DNS records for ${domain}`, ctx.now().toISOString(), result, findings),
  };
}

function domainFacts(answers: DomainAnswers): DomainFacts {
  const { r } = answers;
  const mx = mxWithProviders(r.MX.answers);
  const txt = r.TXT.answers.map(txtJoin);
  const cnameChain = r.CNAME.answers.length > 0 ? r.CNAME.answers.map((c) => c.target) : r.A.cnames;
  return {
    mx,
    gateway: emailGateway(r.MX.answers),
    mxIssues: mxFindings(answers.mxHosts),
    txt,
    cnameChain,
    srv: srvEntries(answers.srvList),
    dnssec: dnssecStatus(r.DNSKEY, [r.A, r.SOA, r.NS, r.MX], r.DS),
    technology: technologyOf(answers, mx, txt, cnameChain),
  };
}

function srvEntries(srvList: readonly ResolveResult<'SRV'>[]): SrvEntry[] {
  return srvList.flatMap((res, i) =>
    res.answers.map((a) => ({ service: SRV_SERVICES[i] as string, priority: a.priority, weight: a.weight, port: a.port, target: a.target })),
  );
}

/** The technology table's evidence: TXT tokens, SPF includes, MX, NS, CNAMEs (apex and www) and CAA issuers. */
function technologyOf({ r, www }: DomainAnswers, mx: readonly MxWithProvider[], txt: string[], cnameChain: readonly string[]): DetectedTechnology[] {
  return detectTechnology({
    TXT: txt,
    SPF: spfTargets(selectSpfRecords(r.TXT.answers)[0]),
    MX: mx.map((m) => m.exchange),
    NS: r.NS.answers.map((n) => n.host),
    CNAME: [...cnameChain, ...(www?.answers.map((c) => c.target) ?? [])],
    CAA: r.CAA.answers.filter((c) => c.tag === 'issue' || c.tag === 'issuewild').map((c) => c.value),
  });
}

/** The record set as data, each long list clipped unless `full` (what was cut goes in `truncated`). */
function recordSet(r: DomainAnswers['r'], facts: DomainFacts, full: boolean) {
  const limit = TOOL_DEFAULTS.listLimit;
  const truncated: Truncated = {};
  const records = {
    A: clip('A', r.A.answers.map((a) => a.address), limit, full, truncated),
    AAAA: clip('AAAA', r.AAAA.answers.map((a) => a.address), limit, full, truncated),
    MX: clip('MX', facts.mx.map((m) => ({ priority: m.priority, exchange: m.exchange })), limit, full, truncated),
    NS: clip('NS', r.NS.answers.map((n) => n.host), limit, full, truncated),
    TXT: clip('TXT', facts.txt, limit, full, truncated),
    SOA: r.SOA.answers.map(({ mname, rname, serial, refresh, retry, expire, minimum }) => ({ mname, rname, serial, refresh, retry, expire, minimum })),
    CNAME: facts.cnameChain,
    CAA: clip('CAA', r.CAA.answers.map(({ flags, tag, value }) => ({ flags, tag, value })), limit, full, truncated),
    DNSKEY: clip('DNSKEY', r.DNSKEY.answers.map(({ flags, protocol, algorithm, keyTag, publicKey }) => ({ flags, protocol, algorithm, keyTag, ...(full ? { publicKey } : {}) })), limit, full, truncated),
    DS: r.DS.answers.map(({ keyTag, algorithm, digestType, digest }) => ({ keyTag, algorithm, digestType, digest })),
    SRV: clip('SRV', facts.srv, limit, full, truncated),
  };
  return { records, truncated };
}
type DomainRecords = ReturnType<typeof recordSet>['records'];

function lookupFailures(apexList: readonly ResolveResult<ApexType>[], srvList: readonly ResolveResult<'SRV'>[]): Failures {
  return Object.fromEntries(
    [...apexList.map((res, i) => [APEX_TYPES[i] as string, res] as const), ...srvList.map((res, i) => [`SRV ${SRV_SERVICES[i]}`, res] as const)]
      .filter(([, res]) => isDnsFailure(res.rcode))
      .map(([label, res]) => [label, res.rcode]),
  );
}

/** The display strings: a failed type reads "lookup failed (rcode)", never "none". */
function displayResult(records: DomainRecords, failures: Failures, facts: DomainFacts, dmarc: DmarcCheck, truncated: Truncated): Record<string, string> {
  const failed = (type: ApexType) => failures[type] as string | undefined;
  const shown = (type: ApexType, text: string) => (failed(type) ? `lookup failed (${failed(type)})` : text);
  const { gateway } = facts;
  const result: Record<string, string> = {
    A: shown('A', list(records.A)),
    AAAA: shown('AAAA', list(records.AAAA)),
    MX: shown('MX', lines(records.MX.map((m) => `${m.priority} ${m.exchange}`))),
    NS: shown('NS', list(records.NS)),
    TXT: shown('TXT', lines(records.TXT)),
    SOA: shown('SOA', records.SOA[0] ? `${records.SOA[0].mname} ${records.SOA[0].rname} serial ${records.SOA[0].serial}` : 'none'),
    CNAME: shown('CNAME', records.CNAME.length > 0 ? records.CNAME.join(' -> ') : 'none'),
    CAA: shown('CAA', lines(records.CAA.map((c) => `${c.flags} ${c.tag} "${c.value}"`))),
    DNSKEY: shown('DNSKEY', lines(records.DNSKEY.map((k) => `flags ${k.flags}, algorithm ${k.algorithm}, key tag ${k.keyTag}`))),
    DS: shown('DS', lines(records.DS.map((d) => `key tag ${d.keyTag}, algorithm ${d.algorithm}, digest type ${d.digestType}`))),
    SRV: lines(records.SRV.map((s) => `${s.service} ${s.priority} ${s.weight} ${s.port} ${s.target}`)),
    'Email Gateway': gateway ? `${gateway.name} (${gateway.exchange})` : failed('MX') ? `unknown (MX lookup ${failed('MX')})` : 'none (no MX records)',
    'DMARC Policy (p)': dmarc.policy ?? (dmarc.status === 'error' ? `unknown (${dmarc.dnsError ?? 'lookup failed'})` : 'none published'),
    DNSSEC: facts.dnssec.status,
    Technology: list(facts.technology.map((t) => t.name)),
  };
  if (facts.mxIssues.length > 0) result['MX Findings'] = lines(facts.mxIssues.map((f) => f.message));
  for (const [type, t] of Object.entries(truncated)) result[type] = `${result[type]}\n(${t.shown} of ${t.total} shown; detail=full for all)`;
  return result;
}

function domainSummary(domain: string, answers: DomainAnswers, records: DomainRecords, failures: Failures, facts: DomainFacts, exists: boolean): string {
  const { apexList, dmarc } = answers;
  if (apexList.every((res) => isDnsFailure(res.rcode))) {
    return `Could not look up ${domain}: every DNS query failed (${[...new Set(apexList.map((res) => res.rcode))].join(', ')}), so nothing is known about its records.`;
  }
  if (!exists) return `${domain} does not exist in the DNS (NXDOMAIN).`;
  return summarize(domain, records, failures, facts.gateway?.name ?? null, dmarc.policy, dmarc.status === 'error', facts.mxIssues, facts.dnssec.status, facts.technology);
}

function domainData(
  ctx: ToolContext,
  domain: string,
  answers: DomainAnswers,
  facts: DomainFacts,
  records: DomainRecords,
  failures: Failures,
  truncated: Truncated,
  exists: boolean,
): ToolOutput['data'] {
  const { dmarc, www } = answers;
  // A failed type is null in the data (unknown), not an empty list; `errors` names the rcode.
  const dataRecords: Record<string, unknown> = { ...records };
  for (const type of APEX_TYPES) if (failures[type]) dataRecords[type] = null;
  return {
    meta: makeMeta(ctx, domain, facts.gateway?.name ?? null, facts.dnssec.status, { ...(Object.keys(truncated).length > 0 ? { truncated } : {}), exists }),
    records: dataRecords,
    email_gateway: facts.gateway,
    mx_providers: facts.mx,
    mx_hosts: answers.mxHosts,
    findings: facts.mxIssues,
    dmarc: { status: dmarc.status, policy: dmarc.policy, record: dmarc.record, source: dmarc.source, ...(dmarc.dnsError ? { dns_error: dmarc.dnsError } : {}) },
    technology: facts.technology,
    dnssec: facts.dnssec,
    www_cname: www?.answers.map((c) => c.target) ?? [],
    ...(Object.keys(failures).length > 0 ? { errors: failures } : {}),
  };
}

function summarize(
  domain: string,
  records: { A: string[]; AAAA: string[]; MX: unknown[] },
  failures: Record<string, string>,
  gateway: string | null,
  dmarc: string | null,
  dmarcFailed: boolean,
  mxIssues: readonly MxFinding[],
  dnssec: string,
  tech: DetectedTechnology[],
): string {
  const count = (type: 'A' | 'AAAA' | 'MX', n: number, one: string, many?: string) => (failures[type] ? `unknown ${many ?? `${one}s`} (${type} lookup failed: ${failures[type]})` : plural(n, one, many));
  const blocking = mxIssues.find((f) => f.severity === 'error');
  const mail = failures.MX
    ? `where it receives mail is unknown (the MX lookup failed: ${failures.MX})`
    : blocking
      ? blocking.code === 'null_mx'
        ? 'it accepts no mail (null MX)'
        : `mail to it cannot be delivered: the MX host has no address (${blocking.hosts.join(', ')})`
      : gateway
        ? `mail is handled by ${gateway}`
        : 'it receives no mail through MX records';
  const parts = [
    `${domain} has ${count('A', records.A.length, 'IPv4 address', 'IPv4 addresses')}, ${count('AAAA', records.AAAA.length, 'IPv6 address', 'IPv6 addresses')} and ${count('MX', records.MX.length, 'MX record')}`,
    mail,
    dmarc ? `the DMARC policy is ${dmarc}` : dmarcFailed ? 'the DMARC lookup failed, so the policy is unknown' : 'no DMARC policy is published',
    `DNSSEC: ${dnssec.replace('_', ' ')}`,
  ];
  const other = mxIssues.filter((f) => f !== blocking);
  if (other.length > 0) parts.push(other.map((f) => f.message).join('; '));
  const failedOthers = Object.keys(failures).filter((t) => t !== 'A' && t !== 'AAAA' && t !== 'MX');
  if (failedOthers.length > 0) parts.push(`could not check ${failedOthers.join(', ')} (lookup failed)`);
  const techText = tech.length > 0 ? ` Detected: ${tech.slice(0, 6).map((t) => t.name).join(', ')}${tech.length > 6 ? ` and ${tech.length - 6} more` : ''}.` : '';
  return `${parts.join('; ')}.${techText}`;
}

/** PTR of an address, with forward confirmation (the PTR name's A/AAAA includes the address). */
async function reverseLookup(ctx: ToolContext, ip: string): Promise<ToolOutput> {
  const name = reverseName(ip);
  const ptr = await ctx.resolver.resolve(name, 'PTR');
  const targets = ptr.answers.map((p) => p.target.replace(/\.$/, ''));
  // null: the forward lookup failed, so whether the name resolves back is unknown (not "no").
  const confirmed = await Promise.all(
    targets.map(async (host): Promise<boolean | null> => {
      const [a, aaaa] = await Promise.all([ctx.resolver.resolve(host, 'A'), ctx.resolver.resolve(host, 'AAAA')]);
      if ([...a.answers, ...aaaa.answers].some((rr) => rr.address.toLowerCase() === ip)) return true;
      return isDnsFailure(a.rcode) || isDnsFailure(aaaa.rcode) ? null : false;
    }),
  );
  const ptrRecords = targets.map((host, i) => ({ host, forward_confirmed: confirmed[i] ?? null }));
  const mark = (c: boolean | null) => (c === true ? ' (forward-confirmed)' : c === false ? ' (does not resolve back to this address)' : ' (forward lookup failed: unknown whether it resolves back)');
  const result = {
    'Reverse Name': name,
    PTR: isDnsFailure(ptr.rcode) ? `lookup failed (${ptr.rcode})` : lines(ptrRecords.map((p) => `${p.host}${mark(p.forward_confirmed)}`)),
  };
  const back = ptrRecords.every((p) => p.forward_confirmed === true)
    ? ', which resolves back to it (forward-confirmed reverse DNS)'
    : ptrRecords.some((p) => p.forward_confirmed === false)
      ? '; the name does not resolve back to the address'
      : '; whether the name resolves back is unknown (the forward lookup failed)';
  const summary = isDnsFailure(ptr.rcode)
    ? `Could not check the reverse DNS of ${ip}: the PTR lookup failed (${ptr.rcode}).`
    : targets.length === 0
      ? `${ip} has no PTR record (${ptr.rcode}).`
      : `${ip} points to ${targets.join(', ')}${back}.`;
  return {
    summary,
    result,
    data: { meta: makeMeta(ctx, ip, null, 'not_applicable', { reverse_name: name }), records: { PTR: isDnsFailure(ptr.rcode) ? null : targets }, ptr: ptrRecords, rcode: ptr.rcode, ...(isDnsFailure(ptr.rcode) ? { errors: { PTR: ptr.rcode } } : {}) },
    report: formatReport(`Reverse DNS for ${ip}`, ctx.now().toISOString(), result),
  };
}
