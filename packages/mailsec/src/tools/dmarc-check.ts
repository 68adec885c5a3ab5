// dmarc_check: DMARC presence, raw record (also when invalid), parsed tags, the organizational-
// domain fallback and the findings (p=none, no rua, unauthorized external rua, several records).
import { checkDmarc, type DmarcCheck } from '../dmarc/check.ts';
import { checkTarget } from '../target.ts';
import type { ToolContext } from './context.ts';
import { dmarcData } from './email-security.ts';
import { formatReport, list, makeMeta, probeDnssec } from './output.ts';
import type { ToolInput, ToolOutput } from './types.ts';

export async function dmarcCheck(ctx: ToolContext, input: ToolInput): Promise<ToolOutput> {
  const { domain } = checkTarget(input.target, { allowIp: false, allowPrivate: false }) as { kind: 'domain'; domain: string };
  const [dmarc, dnssec] = await Promise.all([checkDmarc(domain, ctx.resolver), probeDnssec(ctx, domain)]);
  const t = dmarc.parsed;
  const result: Record<string, string> = {
    'DMARC Record': dmarc.records.length > 0 ? dmarc.records.join('\n') : dmarc.status === 'error' ? `lookup failed (${dmarc.dnsError ?? ''})` : 'none',
    Status: dmarc.status,
    'DMARC Policy (p)': dmarc.policy ?? 'none published',
    Source: dmarc.source === 'organizational' ? `organizational domain (${dmarc.recordName})` : dmarc.recordName ?? 'none',
  };
  if (t) {
    Object.assign(result, {
      'Subdomain Policy (sp)': t.sp ?? `not set (subdomains use p=${t.p ?? 'none'})`,
      'Percentage (pct)': String(t.pct),
      'Aggregate Reports (rua)': list(t.rua.map((u) => u.uri)),
      'Forensic Reports (ruf)': list(t.ruf.map((u) => u.uri)),
      'DKIM Alignment (adkim)': t.adkim === 's' ? 's (strict)' : 'r (relaxed)',
      'SPF Alignment (aspf)': t.aspf === 's' ? 's (strict)' : 'r (relaxed)',
      'Failure Options (fo)': t.fo.join(':'),
      'Report Interval (ri)': `${t.ri} s`,
    });
  }
  const findings = [...dmarc.errors, ...dmarc.warnings].map((w) => `[${w.severity}] ${w.message}`);
  result.Warnings = findings.length > 0 ? findings.join('\n') : 'none';
  return {
    summary: summarize(dmarc),
    result,
    data: { meta: makeMeta(ctx, domain, null, dnssec.status), records: { DMARC: dmarc.records }, dmarc: dmarcData(dmarc) },
    report: formatReport(`DMARC for ${domain}`, ctx.now().toISOString(), result),
  };
}

function summarize(d: DmarcCheck): string {
  if (d.status === 'error') return `The DMARC lookup for ${d.domain} failed (${d.dnsError ?? 'DNS error'}).`;
  if (d.status === 'none') return `${d.domain} publishes no DMARC record${d.orgDomain !== d.domain ? `, and neither does ${d.orgDomain}` : ''}: receivers apply no DMARC policy.`;
  const where = d.source === 'organizational' ? `${d.domain} has no record of its own and inherits ${d.orgDomain}'s` : `${d.domain} publishes a`;
  const validity = d.status === 'valid' ? 'valid DMARC record' : 'DMARC record with errors';
  const policy = d.policy ? ` The policy in force is ${d.policy}${d.policy === 'none' ? ' (monitoring only)' : ''}.` : ' No policy applies.';
  const warnings = d.warnings.length + d.errors.length;
  return `${where} ${validity}.${policy}${warnings > 0 ? ` ${warnings} finding${warnings === 1 ? '' : 's'}.` : ''}`;
}
