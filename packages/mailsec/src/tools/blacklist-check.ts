// blacklist_check: a domain or IP against the DNSBL table. For a domain: the domain on domain
// lists and its MX and A/AAAA addresses on IP lists. Refusal answers are "not usable from here";
// failed queries are "could not be checked": when no list answered the answer is unknown (summary
// and `listed: null`), and a partial check names how many lists really answered.
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
  result.Checked = `${check.listsChecked} of ${plural(check.listsAsked, 'list')} answered; ${[check.subjects.domain, ...check.subjects.ips.map((i) => i.ip)].filter(Boolean).join(', ') || 'nothing to check'}`;
  result.Status = check.status;
  if (check.subjects.skipped.length > 0) result.Skipped = check.subjects.skipped.map((s) => `${s.subject}: ${s.reason}`).join('\n');
  if (check.subjects.failed.length > 0) result['Failed Lookups'] = check.subjects.failed.map((f) => `${f.name} ${f.type} (${f.rcode})`).join('\n');
  return {
    summary: summarize(check),
    result,
    data: {
      meta: makeMeta(ctx, check.target, null, dnssec, { target_kind: check.kind }),
      records: target.kind === 'domain' ? { A: check.subjects.ips.map((i) => i.ip) } : {},
      blacklist: {
        status: check.status,
        // null: nothing could be checked, so the number of listings is unknown (not 0).
        listed: check.status === 'unknown' ? null : check.listed.length,
        lists_checked: check.listsChecked,
        lists_asked: check.listsAsked,
        queries_failed: check.errors.length,
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
          ...(r.rcode ? { rcode: r.rcode } : {}),
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
  const rcodes = [...new Set(c.errors.map((r) => r.rcode ?? 'error'))].join(', ');
  const caveats = [
    c.unusable.length > 0 ? `${[...new Set(c.unusable.map((r) => r.list))].join(', ')} could not be used from here (the list refused the query)` : '',
    c.errors.length > 0 ? `${plural(c.errors.length, 'query', 'queries')} failed (${rcodes})` : '',
    c.subjects.failed.length > 0
      ? `the addresses of ${[...new Set(c.subjects.failed.map((f) => f.name))].join(', ')} could not be looked up (${[...new Set(c.subjects.failed.map((f) => f.rcode))].join(', ')}), so they were not checked`
      : '',
  ].filter(Boolean);
  const tail = caveats.length > 0 ? ` Note: ${caveats.join('; ')}.` : '';
  if (c.status === 'unknown') {
    const why = c.listsAsked === 0 ? 'there was nothing to check it against' : `none of the ${plural(c.listsAsked, 'blacklist')} asked answered`;
    return `Unknown: could not check whether ${c.target} is blacklisted: ${why}.${tail}`;
  }
  if (c.status === 'clean') return `${what} ${c.kind === 'domain' ? 'are' : 'is'} not listed on any of the ${plural(c.listsChecked, 'blacklist')} checked.${tail}`;
  if (c.status === 'partial') {
    const unchecked = c.listsAsked - c.listsChecked;
    const also = unchecked > 0 ? `; ${unchecked} of the ${c.listsAsked} could not be checked` : '';
    return `${what} ${c.kind === 'domain' ? 'are' : 'is'} not listed on any of the ${plural(c.listsChecked, 'blacklist')} that answered${also}.${tail}`;
  }
  const names = (rs: DnsblResult[]) => rs.map((r) => `${r.list} (${r.subject}: ${r.meanings.join('; ')})`).join(', ');
  const parts = [abuse.length > 0 ? `listed on ${names(abuse)}` : '', policy.length > 0 ? `on policy lists ${names(policy)}` : ''].filter(Boolean);
  return `${c.kind === 'domain' ? `For ${what}: ` : `${what} is `}${parts.join('; and ')}.${tail}`;
}
