// email_security_check: MX with gateway/provider, SPF with the 10-lookup verdict, DMARC policy,
// plus the MTA-STS and TLS-RPT records and DNSSEC, all looked up in parallel, then whether the MX
// hosts have an address. A failed lookup reads "unknown"/"lookup failed", never "none".
import { checkDmarc, type DmarcCheck } from '../dmarc/check.ts';
import type { DnssecFacts } from '../dns/dnssec.ts';
import { emailGateway, mxWithProviders, type EmailGateway, type MxWithProvider } from '../dns/gateway.ts';
import { mxFindings, mxHostAddresses, type MxFinding, type MxHostAddresses } from '../dns/mx-hosts.ts';
import { isDnsFailure, txtJoin, type ResolveResult } from '../resolver/types.ts';
import { analyzeSpf, type SpfAnalysis } from '../spf/analyzer.ts';
import { checkTarget } from '../target.ts';
import type { ToolContext } from './context.ts';
import { TOOL_DEFAULTS } from './defaults.ts';
import { clip, formatReport, lines, makeMeta, probeDnssec } from './output.ts';
import type { ToolInput, ToolOutput } from './types.ts';

/** Everything email_security_check asks the DNS about a domain. */
interface SecurityAnswers {
  mxRes: ResolveResult<'MX'>;
  spf: SpfAnalysis;
  dmarc: DmarcCheck;
  dnssec: DnssecFacts;
  mtaSts: ResolveResult<'TXT'>;
  tlsRpt: ResolveResult<'TXT'>;
  mxHosts: MxHostAddresses[];
}

/** The MX area: providers in preference order (clipped unless `full`), the gateway and the hosts' findings. */
interface MxArea {
  gateway: EmailGateway | null;
  mxShown: MxWithProvider[];
  mxIssues: MxFinding[];
  truncated: Record<string, { shown: number; total: number }>;
  gatewayText: string;
}

/** The published policy records: the first TXT of the right version, or null. */
interface TlsPolicies {
  mtaStsRecord: string | null;
  tlsRptRecord: string | null;
}

export async function emailSecurityCheck(ctx: ToolContext, input: ToolInput): Promise<ToolOutput> {
  const { domain } = checkTarget(input.target, { allowIp: false, allowPrivate: false }) as { kind: 'domain'; domain: string };
  const answers = await gatherSecurity(ctx, domain);
  return securityOutput(ctx, domain, answers, input.detail === 'full');
}

/** MX, SPF, DMARC, DNSSEC, MTA-STS and TLS-RPT in parallel; then the MX hosts' addresses. */
async function gatherSecurity(ctx: ToolContext, domain: string): Promise<SecurityAnswers> {
  const [mxRes, spf, dmarc, dnssec, mtaSts, tlsRpt] = await Promise.all([
    ctx.resolver.resolve(domain, 'MX'),
    analyzeSpf(domain, ctx.resolver),
    checkDmarc(domain, ctx.resolver),
    probeDnssec(ctx, domain),
    ctx.resolver.resolve(`_mta-sts.${domain}`, 'TXT'),
    ctx.resolver.resolve(`_smtp._tls.${domain}`, 'TXT'),
  ]);
  const mxHosts = await mxHostAddresses(mxRes.answers, ctx.resolver, TOOL_DEFAULTS.mxHostsChecked);
  return { mxRes, spf, dmarc, dnssec, mtaSts, tlsRpt, mxHosts };
}

function securityOutput(ctx: ToolContext, domain: string, answers: SecurityAnswers, full: boolean): ToolOutput {
  const area = mxArea(answers.mxRes, answers.mxHosts, full);
  const policies: TlsPolicies = {
    mtaStsRecord: policyRecord(answers.mtaSts, /^v=STSv1/i),
    tlsRptRecord: policyRecord(answers.tlsRpt, /^v=TLSRPTv1/i),
  };
  const result = securityResult(answers, area, policies);
  return {
    summary: summarize(domain, area.gatewayText, answers.spf, answers.dmarc, area.mxIssues),
    result,
    data: securityData(ctx, domain, answers, area, policies, full),
    report: formatReport(`Email security for ${domain}`, ctx.now().toISOString(), result, securityFindings(domain, answers, area.mxIssues)),
  };
}

function mxArea(mxRes: ResolveResult<'MX'>, mxHosts: readonly MxHostAddresses[], full: boolean): MxArea {
  const mxIssues = mxFindings(mxHosts);
  const gateway = emailGateway(mxRes.answers);
  const truncated: MxArea['truncated'] = {};
  const mxShown = clip('MX', mxWithProviders(mxRes.answers), TOOL_DEFAULTS.listLimit, full, truncated);
  return { gateway, mxShown, mxIssues, truncated, gatewayText: gatewayText(mxRes, gateway, mxIssues) };
}

/** Where mail goes: nowhere usable when the MX host has no address; "unknown", never "none", when the MX lookup failed. */
function gatewayText(mxRes: ResolveResult<'MX'>, gateway: EmailGateway | null, mxIssues: readonly MxFinding[]): string {
  const undeliverable = mxIssues.find((f) => f.code === 'mx_host_no_address');
  if (undeliverable) return `none usable (the MX host has no address: ${undeliverable.hosts.join(', ')})`;
  if (gateway) return gatewayLabel(gateway.name, gateway.kind, gateway.exchange);
  return mxRes.rcode === 'NXDOMAIN' ? 'none (domain does not exist)' : isDnsFailure(mxRes.rcode) ? `unknown (MX lookup ${mxRes.rcode})` : 'none (no MX records)';
}

function policyRecord(res: ResolveResult<'TXT'>, version: RegExp): string | null {
  return res.answers.map(txtJoin).find((t) => version.test(t)) ?? null;
}

function securityResult({ spf, dmarc, dnssec, mtaSts, tlsRpt }: SecurityAnswers, area: MxArea, { mtaStsRecord, tlsRptRecord }: TlsPolicies): Record<string, string> {
  const result: Record<string, string> = {
    'Email Gateway': area.gatewayText,
    MX: lines(area.mxShown.map((m) => `${m.priority} ${m.exchange} (${m.provider})`)),
    SPF: spf.record ?? spfMissingText(spf),
    'SPF Lookups': `${spf.lookups.total} of ${spf.lookups.limit} (${spf.verdict === 'ok' ? 'ok' : 'over the limit'})`,
    'SPF Status': spf.status,
    'DMARC Policy (p)': dmarc.policy ?? 'none published',
    DMARC: dmarc.record ?? (dmarc.status === 'error' ? `lookup failed: ${dmarc.dnsError ?? ''}` : 'no record'),
    'MTA-STS': mtaStsRecord ?? (isDnsFailure(mtaSts.rcode) ? `lookup failed (${mtaSts.rcode})` : 'none'),
    'TLS-RPT': tlsRptRecord ?? (isDnsFailure(tlsRpt.rcode) ? `lookup failed (${tlsRpt.rcode})` : 'none'),
    DNSSEC: dnssec.status,
  };
  const cut = area.truncated.MX;
  if (cut) result.MX = `${result.MX}\n(${cut.shown} of ${cut.total} shown; detail=full for all)`;
  if (area.mxIssues.length > 0) result['MX Findings'] = lines(area.mxIssues.map((f) => f.message));
  return result;
}

/** The report's findings, by area: MX, SPF, DMARC, then failed MTA-STS / TLS-RPT lookups. */
function securityFindings(domain: string, { mxRes, spf, dmarc, mtaSts, tlsRpt }: SecurityAnswers, mxIssues: readonly MxFinding[]): string[] {
  return [
    ...mxIssues.map((f) => `MX: ${f.message}`),
    ...spf.warnings.map((w) => `SPF: ${w.message}`),
    ...[...dmarc.errors, ...dmarc.warnings].map((w) => `DMARC: ${w.message}`),
    ...(mxRes.answers.length === 0 && !isDnsFailure(mxRes.rcode) ? ['MX: no MX records; mail goes to the A record if any (RFC 5321 5.1)'] : []),
    ...(isDnsFailure(mtaSts.rcode) ? [`MTA-STS: the lookup of _mta-sts.${domain} failed (${mtaSts.rcode})`] : []),
    ...(isDnsFailure(tlsRpt.rcode) ? [`TLS-RPT: the lookup of _smtp._tls.${domain} failed (${tlsRpt.rcode})`] : []),
  ];
}

function securityData(ctx: ToolContext, domain: string, answers: SecurityAnswers, area: MxArea, { mtaStsRecord, tlsRptRecord }: TlsPolicies, full: boolean): ToolOutput['data'] {
  const { mxRes, spf, dmarc, dnssec, mtaSts, tlsRpt } = answers;
  const failures = Object.fromEntries(
    [['MX', mxRes.rcode] as const, ['MTA_STS', mtaSts.rcode] as const, ['TLS_RPT', tlsRpt.rcode] as const].filter(([, rcode]) => isDnsFailure(rcode)),
  );
  return {
    meta: makeMeta(ctx, domain, area.gateway?.name ?? null, dnssec.status, Object.keys(area.truncated).length > 0 ? { truncated: area.truncated } : {}),
    // A failed lookup is null (unknown) here, not an empty list; `errors` names the rcode.
    records: {
      MX: failures.MX ? null : area.mxShown.map((m) => ({ priority: m.priority, exchange: m.exchange })),
      SPF: spf.tree.records,
      DMARC: dmarc.records,
      MTA_STS: failures.MTA_STS ? null : mtaStsRecord ? [mtaStsRecord] : [],
      TLS_RPT: failures.TLS_RPT ? null : tlsRptRecord ? [tlsRptRecord] : [],
    },
    email_gateway: area.gateway,
    mx_providers: area.mxShown,
    mx_hosts: answers.mxHosts,
    findings: area.mxIssues,
    ...(Object.keys(failures).length > 0 ? { errors: failures } : {}),
    spf: spfData(spf, full),
    dmarc: dmarcData(dmarc),
    dnssec,
  };
}

function spfData(spf: SpfAnalysis, full: boolean): Record<string, unknown> {
  return {
    status: spf.status,
    record: spf.record ?? null,
    verdict: spf.verdict,
    lookups: spf.lookups,
    void_lookups: spf.voidLookups,
    warnings: spf.warnings,
    loops: spf.loops,
    ...(full ? { tree: spf.tree } : {}),
  };
}

function gatewayLabel(name: string, kind: string, exchange: string): string {
  if (kind === 'null_mx') return 'none (null MX: the domain accepts no mail)';
  if (kind === 'self_hosted') return `${name} (self-hosted or unknown provider, ${exchange})`;
  return name;
}

function spfMissingText(spf: SpfAnalysis): string {
  return spf.status === 'temperror' ? `lookup failed (${spf.tree.error ?? 'DNS error'})` : 'no SPF record';
}

function summarize(domain: string, gatewayText: string, spf: SpfAnalysis, dmarc: DmarcCheck, mxIssues: readonly MxFinding[]): string {
  const undeliverable = mxIssues.find((f) => f.code === 'mx_host_no_address');
  const gw = undeliverable
    ? `${domain}: ${undeliverable.message}.`
    : gatewayText.startsWith('none') || gatewayText.startsWith('unknown')
      ? `${domain} mail gateway: ${gatewayText}.`
      : `${domain} receives mail through ${gatewayText}.`;
  const other = mxIssues.filter((f) => f.code !== 'mx_host_no_address' && f.code !== 'null_mx');
  const mxNote = other.length > 0 ? ` Note: ${other.map((f) => f.message).join('; ')}.` : '';
  const spfText = spf.record
    ? `SPF is published and uses ${spf.lookups.total} of ${spf.lookups.limit} DNS lookups (${spf.verdict === 'ok' ? 'ok' : 'over the limit: receivers return permerror'})${spf.status === 'permerror' ? ', but it has errors' : ''}.`
    : spf.status === 'temperror'
      ? 'The SPF lookup failed.'
      : 'No SPF record is published.';
  const dmarcText = dmarc.policy
    ? `DMARC policy is ${dmarc.policy}${dmarc.source === 'organizational' ? ` (inherited from ${dmarc.orgDomain})` : ''}${dmarc.status === 'invalid' ? ', but the record has errors' : ''}.`
    : dmarc.status === 'error'
      ? 'The DMARC lookup failed.'
      : dmarc.status === 'invalid'
        ? 'The DMARC record is invalid, so no policy applies.'
        : 'No DMARC policy is published.';
  return `${gw} ${spfText} ${dmarcText}${mxNote}`;
}

/** The DMARC part shared by email_security_check and dmarc_check's data. */
export function dmarcData(dmarc: DmarcCheck): Record<string, unknown> {
  return {
    status: dmarc.status,
    policy: dmarc.policy,
    record: dmarc.record,
    records: dmarc.records,
    source: dmarc.source,
    record_name: dmarc.recordName,
    org_domain: dmarc.orgDomain,
    tags: dmarc.parsed
      ? {
          p: dmarc.parsed.p ?? null,
          sp: dmarc.parsed.sp ?? null,
          pct: dmarc.parsed.pct,
          rua: dmarc.parsed.rua.map((u) => u.uri),
          ruf: dmarc.parsed.ruf.map((u) => u.uri),
          adkim: dmarc.parsed.adkim,
          aspf: dmarc.parsed.aspf,
          fo: dmarc.parsed.fo.join(':'),
          ri: dmarc.parsed.ri,
          ...(dmarc.parsed.np ? { np: dmarc.parsed.np } : {}),
        }
      : null,
    raw_tags: dmarc.parsed?.tags ?? null,
    external_reports: dmarc.externalReports,
    errors: dmarc.errors,
    warnings: dmarc.warnings,
    ...(dmarc.dnsError ? { dns_error: dmarc.dnsError } : {}),
  };
}
