// dns_lookup: the live record set of a domain (or the reverse name of an IP), with the email
// gateway, DMARC policy, detected technology and DNSSEC status. Every lookup runs in parallel.
import { checkDmarc } from '../dmarc/check.ts';
import { detectTechnology, spfTargets, type DetectedTechnology } from '../dns/detect.ts';
import { dnssecStatus } from '../dns/dnssec.ts';
import { emailGateway, mxWithProviders } from '../dns/gateway.ts';
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

  const result: Record<string, string> = {
    A: list(records.A),
    AAAA: list(records.AAAA),
    MX: lines(records.MX.map((m) => `${m.priority} ${m.exchange}`)),
    NS: list(records.NS),
    TXT: lines(records.TXT),
    SOA: records.SOA[0] ? `${records.SOA[0].mname} ${records.SOA[0].rname} serial ${records.SOA[0].serial}` : 'none',
    CNAME: records.CNAME.length > 0 ? records.CNAME.join(' -> ') : 'none',
    CAA: lines(records.CAA.map((c) => `${c.flags} ${c.tag} "${c.value}"`)),
    DNSKEY: lines(records.DNSKEY.map((k) => `flags ${k.flags}, algorithm ${k.algorithm}, key tag ${k.keyTag}`)),
    DS: lines(records.DS.map((d) => `key tag ${d.keyTag}, algorithm ${d.algorithm}, digest type ${d.digestType}`)),
    SRV: lines(records.SRV.map((s) => `${s.service} ${s.priority} ${s.weight} ${s.port} ${s.target}`)),
    'Email Gateway': gateway ? `${gateway.name} (${gateway.exchange})` : 'none (no MX records)',
    'DMARC Policy (p)': dmarcPolicy ?? 'none published',
    DNSSEC: dnssec.status,
    Technology: list(technology.map((t) => t.name)),
  };
  for (const [type, t] of Object.entries(truncated)) result[type] = `${result[type]}\n(${t.shown} of ${t.total} shown; detail=full for all)`;

  const summary = exists ? summarize(domain, records, gateway?.name ?? null, dmarcPolicy, dnssec.status, technology) : `${domain} does not exist in the DNS (NXDOMAIN).`;
  const findings = Object.entries(failures).map(([label, rcode]) => `${label} lookup failed (${rcode})`);
  return {
    summary,
    result,
    data: {
      meta: makeMeta(ctx, domain, gateway?.name ?? null, dnssec.status, { ...(Object.keys(truncated).length > 0 ? { truncated } : {}), exists }),
      records,
      email_gateway: gateway,
      mx_providers: mx,
      dmarc: { policy: dmarcPolicy, record: dmarc.record, source: dmarc.source },
      technology,
      dnssec,
      www_cname: www?.answers.map((c) => c.target) ?? [],
      ...(Object.keys(failures).length > 0 ? { errors: failures } : {}),
    },
    report: formatReport(`DNS records for ${domain}`, ctx.now().toISOString(), result, findings),
  };
}

function summarize(domain: string, records: { A: string[]; AAAA: string[]; MX: unknown[]; TXT: string[] }, gateway: string | null, dmarc: string | null, dnssec: string, tech: DetectedTechnology[]): string {
  const parts = [
    `${domain} has ${plural(records.A.length, 'IPv4 address', 'IPv4 addresses')}, ${plural(records.AAAA.length, 'IPv6 address', 'IPv6 addresses')} and ${plural(records.MX.length, 'MX record')}`,
    gateway ? `mail is handled by ${gateway}` : 'it receives no mail through MX records',
    dmarc ? `the DMARC policy is ${dmarc}` : 'no DMARC policy is published',
    `DNSSEC: ${dnssec.replace('_', ' ')}`,
  ];
  const techText = tech.length > 0 ? ` Detected: ${tech.slice(0, 6).map((t) => t.name).join(', ')}${tech.length > 6 ? ` and ${tech.length - 6} more` : ''}.` : '';
  return `${parts.join('; ')}.${techText}`;
}

/** PTR of an address, with forward confirmation (the PTR name's A/AAAA includes the address). */
async function reverseLookup(ctx: ToolContext, ip: string): Promise<ToolOutput> {
  const name = reverseName(ip);
  const ptr = await ctx.resolver.resolve(name, 'PTR');
  const targets = ptr.answers.map((p) => p.target.replace(/\.$/, ''));
  const confirmed = await Promise.all(
    targets.map(async (host) => {
      const [a, aaaa] = await Promise.all([ctx.resolver.resolve(host, 'A'), ctx.resolver.resolve(host, 'AAAA')]);
      return [...a.answers, ...aaaa.answers].some((rr) => rr.address.toLowerCase() === ip);
    }),
  );
  const ptrRecords = targets.map((host, i) => ({ host, forward_confirmed: confirmed[i] === true }));
  const result = {
    'Reverse Name': name,
    PTR: lines(ptrRecords.map((p) => `${p.host}${p.forward_confirmed ? ' (forward-confirmed)' : ' (does not resolve back to this address)'}`)),
  };
  const summary = isDnsFailure(ptr.rcode)
    ? `The reverse lookup of ${ip} failed (${ptr.rcode}).`
    : targets.length === 0
      ? `${ip} has no PTR record (${ptr.rcode}).`
      : `${ip} points to ${targets.join(', ')}${ptrRecords.every((p) => p.forward_confirmed) ? ', which resolves back to it (forward-confirmed reverse DNS)' : '; the name does not resolve back to the address'}.`;
  return {
    summary,
    result,
    data: { meta: makeMeta(ctx, ip, null, 'not_applicable', { reverse_name: name }), records: { PTR: targets }, ptr: ptrRecords, rcode: ptr.rcode },
    report: formatReport(`Reverse DNS for ${ip}`, ctx.now().toISOString(), result),
  };
}
