// blacklist_check: a domain or IP against the DNSBL table. For a domain: the domain on domain
// lists and its MX and A/AAAA addresses on IP lists. Refusal answers are "not usable from here".
import { checkBlacklists, type BlacklistCheck, type DnsblResult } from '../dnsbl/check.ts';
import { checkTarget } from '../target.ts';
import type { ToolContext } from './context.ts';
import { TOOL_DEFAULTS } from './defaults.ts';
import { formatReport, makeMeta, plural, probeDnssec } from './output.ts';
import type { ToolInput, ToolOutput } from './types.ts';

export async function blacklistCheck(ctx: ToolContext, input: ToolInput): Promise<ToolOutput> {
  const target = checkTarget(input.target, { allowIp: true, allowPrivate: ctx.settings.allowPrivateTargets });
  const [check, dnssec] = await Promise.all([
    checkBlacklists(target, ctx.resolver, { zones: ctx.settings.dnsblZones, allowPrivate: ctx.settings.allowPrivateTargets, maxIps: TOOL_DEFAULTS.blacklistMaxIps }),
    target.kind === 'domain' ? probeDnssec(ctx, target.domain).then((d) => d.status) : Promise.resolve('not_applicable'),
  ]);
  const result: Record<string, string> = {};
  for (const r of check.results) result[`${r.list} (${r.subject})`] = describe(r);
  result.Checked = `${plural(check.listsChecked, 'list')}; ${[check.subjects.domain, ...check.subjects.ips.map((i) => i.ip)].filter(Boolean).join(', ') || 'nothing to check'}`;
  if (check.subjects.skipped.length > 0) result.Skipped = check.subjects.skipped.map((s) => `${s.subject}: ${s.reason}`).join('\n');
  return {
    summary: summarize(check),
    result,
    data: {
      meta: makeMeta(ctx, check.target, null, dnssec, { target_kind: check.kind }),
      records: target.kind === 'domain' ? { A: check.subjects.ips.map((i) => i.ip) } : {},
      blacklist: {
        listed: check.listed.length,
        lists_checked: check.listsChecked,
        subjects: check.subjects,
        results: check.results.map((r) => ({
          list: r.list,
          zone: r.zone,
          subject: r.subject,
          query: r.query,
          outcome: r.outcome,
          codes: r.codes,
          meanings: r.meanings,
          policy_only: r.policyOnly,
          ...(r.reason ? { reason: r.reason } : {}),
          ...(r.detail ? { detail: r.detail } : {}),
          ...(r.lookupUrl ? { lookup_url: r.lookupUrl } : {}),
        })),
      },
    },
    report: formatReport(`Blacklist check for ${check.target}`, ctx.now().toISOString(), result),
  };
}

function describe(r: DnsblResult): string {
  switch (r.outcome) {
    case 'listed':
      return `LISTED: ${r.meanings.join('; ')}${r.policyOnly ? ' (policy listing)' : ''}${r.reason ? `\n${r.reason}` : ''}`;
    case 'not_listed':
      return 'not listed';
    case 'unusable':
      return `list not usable from here: ${r.detail ?? ''}`;
    case 'error':
      return `could not be checked: ${r.detail ?? ''}`;
  }
}

function summarize(c: BlacklistCheck): string {
  const what = c.kind === 'domain' ? `${c.target} and ${plural(c.subjects.ips.length, 'mail/web server address', 'mail/web server addresses')}` : c.target;
  const abuse = c.listed.filter((r) => !r.policyOnly);
  const policy = c.listed.filter((r) => r.policyOnly);
  const caveats = [
    c.unusable.length > 0 ? `${[...new Set(c.unusable.map((r) => r.list))].join(', ')} could not be used from here (the list refused the query)` : '',
    c.errors.length > 0 ? `${plural(c.errors.length, 'query', 'queries')} failed` : '',
  ].filter(Boolean);
  const tail = caveats.length > 0 ? ` Note: ${caveats.join('; ')}.` : '';
  if (c.listed.length === 0) {
    const usable = c.listsChecked - new Set(c.unusable.map((r) => r.zone)).size;
    return `${what} ${c.kind === 'domain' ? 'are' : 'is'} not listed on any of the ${plural(usable, 'blacklist')} that answered.${tail}`;
  }
  const names = (rs: DnsblResult[]) => rs.map((r) => `${r.list} (${r.subject}: ${r.meanings.join('; ')})`).join(', ');
  const parts = [abuse.length > 0 ? `listed on ${names(abuse)}` : '', policy.length > 0 ? `on policy lists ${names(policy)}` : ''].filter(Boolean);
  return `${c.kind === 'domain' ? `For ${what}: ` : `${what} is `}${parts.join('; and ')}.${tail}`;
}
