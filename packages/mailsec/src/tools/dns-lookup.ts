// dns_lookup: the live record set of a domain (or the reverse name of an IP), with the email
// gateway, DMARC policy, detected technology and DNSSEC status, and whether the MX hosts have an
// address. Every lookup runs in parallel (the MX hosts' addresses after the MX answer). A failed
// lookup is reported as failed (record null, `errors`, "lookup failed" in the summary), never
// as an empty record set.
import { checkDmarc } from '../dmarc/check.ts';
import { detectTechnology, spfTargets, type DetectedTechnology } from '../dns/detect.ts';
import { dnssecStatus } from '../dns/dnssec.ts';
import { emailGateway, mxWithProviders } from '../dns/gateway.ts';
import { mxFindings, mxHostAddresses, type MxFinding } from '../dns/mx-hosts.ts';
import { reverseName } from '../dns/reverse.ts';
import { SRV_SERVICES } from '../dns/srv-services.ts';
import { isDnsFailure, txtJoin, type ResolveResult, type RrType } from '../resolver/types.ts';
import { selectSpfRecords } from '../spf/select.ts';
import { checkTarget } from '../target.ts';
import type { ToolContext } from './context.ts';
import { TOOL_DEFAULTS } from './defaults.ts';
import { clip, formatReport, lines, list, makeMeta, plural } from './output.ts';
import type { ToolInput, ToolOutput } from './types.ts';

const APEX_TYPES = ['A', 'AAAA', 'MX', 'NS', 'TXT', 'SOA', 'CNAME', 'CAA', 'DNSKEY', 'DS'] as const satisfies readonly RrType[];
type ApexType = (typeof APEX_TYPES)[number];

// eslint-disable-next-line max-lines-per-function -- still to be split into named steps
export async function dnsLookup(ctx: ToolContext, input: ToolInput): Promise<ToolOutput> {
  const target = checkTarget(input.target, { allowIp: true, allowPrivate: ctx.settings.allowPrivateTargets });
  if (target.kind === 'ip') return reverseLookup(ctx, target.ip);
  const domain = target.domain;
  const full = input.detail === 'full';
  const limit = TOOL_DEFAULTS.listLimit;

  const apexLookups = Promise.all(APEX_TYPES.map((t) => ctx.resolver.resolve(domain, t)));
  const srvLookups = Promise.all(SRV_SERVICES.map((s) => ctx.resolver.resolve(`${s}.${domain}`, 'SRV')));
  const wwwLookup = domain.startsWith('www.') ? Promise.resolve(undefined) : ctx.resolver.resolve(`www.${domain}`, 'CNAME');
  const [apexList, srvList, www, dmarc] = await Promise.all([apexLookups, srvLookups, wwwLookup, checkDmarc(domain, ctx.resolver)]);
  const r = Object.fromEntries(APEX_TYPES.map((t, i) => [t, apexList[i]])) as { [T in ApexType]: ResolveResult<T> };
  const mxHosts = await mxHostAddresses(r.MX.answers, ctx.resolver, TOOL_DEFAULTS.mxHostsChecked);
  const mxIssues = mxFindings(mxHosts);

  const mx = mxWithProviders(r.MX.answers);
  const gateway = emailGateway(r.MX.answers);
  const txt = r.TXT.answers.map(txtJoin);
  const cnameChain = r.CNAME.answers.length > 0 ? r.CNAME.answers.map((c) => c.target) : r.A.cnames;
  const srv = srvList.flatMap((res, i) =>
    res.answers.map((a) => ({ service: SRV_SERVICES[i] as string, priority: a.priority, weight: a.weight, port: a.port, target: a.target })),
  );
  const dnssec = dnssecStatus(r.DNSKEY, [r.A, r.SOA, r.NS, r.MX], r.DS);
  const technology = detectTechnology({
    TXT: txt,
    SPF: spfTargets(selectSpfRecords(r.TXT.answers)[0]),
    MX: mx.map((m) => m.exchange),
    NS: r.NS.answers.map((n) => n.host),
    CNAME: [...cnameChain, ...(www?.answers.map((c) => c.target) ?? [])],
    CAA: r.CAA.answers.filter((c) => c.tag === 'issue' || c.tag === 'issuewild').map((c) => c.value),
  });

  const truncated: Record<string, { shown: number; total: number }> = {};
  const records = {
    A: clip('A', r.A.answers.map((a) => a.address), limit, full, truncated),
    AAAA: clip('AAAA', r.AAAA.answers.map((a) => a.address), limit, full, truncated),
    MX: clip('MX', mx.map((m) => ({ priority: m.priority, exchange: m.exchange })), limit, full, truncated),
    NS: clip('NS', r.NS.answers.map((n) => n.host), limit, full, truncated),
    TXT: clip('TXT', txt, limit, full, truncated),
    SOA: r.SOA.answers.map(({ mname, rname, serial, refresh, retry, expire, minimum }) => ({ mname, rname, serial, refresh, retry, expire, minimum })),
    CNAME: cnameChain,
    CAA: clip('CAA', r.CAA.answers.map(({ flags, tag, value }) => ({ flags, tag, value })), limit, full, truncated),
    DNSKEY: clip('DNSKEY', r.DNSKEY.answers.map(({ flags, protocol, algorithm, keyTag, publicKey }) => ({ flags, protocol, algorithm, keyTag, ...(full ? { publicKey } : {}) })), limit, full, truncated),
    DS: r.DS.answers.map(({ keyTag, algorithm, digestType, digest }) => ({ keyTag, algorithm, digestType, digest })),
    SRV: clip('SRV', srv, limit, full, truncated),
  };
  const failures = Object.fromEntries(
    [...apexList.map((res, i) => [APEX_TYPES[i] as string, res] as const), ...srvList.map((res, i) => [`SRV ${SRV_SERVICES[i]}`, res] as const)]
      .filter(([, res]) => isDnsFailure(res.rcode))
      .map(([label, res]) => [label, res.rcode]),
  );
  const exists = !apexList.every((res) => res.rcode === 'NXDOMAIN');
  const dmarcPolicy = dmarc.policy;
  const failed = (type: ApexType) => failures[type] as string | undefined;
  const shown = (type: ApexType, text: string) => (failed(type) ? `lookup failed (${failed(type)})` : text);

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
    'DMARC Policy (p)': dmarcPolicy ?? (dmarc.status === 'error' ? `unknown (${dmarc.dnsError ?? 'lookup failed'})` : 'none published'),
    DNSSEC: dnssec.status,
    Technology: list(technology.map((t) => t.name)),
  };
  if (mxIssues.length > 0) result['MX Findings'] = lines(mxIssues.map((f) => f.message));
  for (const [type, t] of Object.entries(truncated)) result[type] = `${result[type]}\n(${t.shown} of ${t.total} shown; detail=full for all)`;

  const allFailed = apexList.every((res) => isDnsFailure(res.rcode));
  const summary = allFailed
    ? `Could not look up ${domain}: every DNS query failed (${[...new Set(apexList.map((res) => res.rcode))].join(', ')}), so nothing is known about its records.`
    : exists
      ? summarize(domain, records, failures, gateway?.name ?? null, dmarcPolicy, dmarc.status === 'error', mxIssues, dnssec.status, technology)
      : `${domain} does not exist in the DNS (NXDOMAIN).`;
  const findings = [...mxIssues.map((f) => f.message), ...Object.entries(failures).map(([label, rcode]) => `${label} lookup failed (${rcode})`)];
  // A failed type is null in the data (unknown), not an empty list; `errors` names the rcode.
  const dataRecords: Record<string, unknown> = { ...records };
  for (const type of APEX_TYPES) if (failed(type)) dataRecords[type] = null;
  return {
    summary,
    result,
    data: {
      meta: makeMeta(ctx, domain, gateway?.name ?? null, dnssec.status, { ...(Object.keys(truncated).length > 0 ? { truncated } : {}), exists }),
      records: dataRecords,
      email_gateway: gateway,
      mx_providers: mx,
      mx_hosts: mxHosts,
      findings: mxIssues,
      dmarc: { status: dmarc.status, policy: dmarcPolicy, record: dmarc.record, source: dmarc.source, ...(dmarc.dnsError ? { dns_error: dmarc.dnsError } : {}) },
      technology,
      dnssec,
      www_cname: www?.answers.map((c) => c.target) ?? [],
      ...(Object.keys(failures).length > 0 ? { errors: failures } : {}),
    },
    report: formatReport(`DNS records for ${domain}`, ctx.now().toISOString(), result, findings),
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
