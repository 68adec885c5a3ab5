// dkim_discover: published DKIM keys found by sweeping common selectors, with key type and size,
// revoked keys and the provider each maps to.
import { discoverDkim, type DkimDiscovery, type DkimSelectorFound } from '../dkim/discover.ts';
import { checkTarget } from '../target.ts';
import type { ToolContext } from './context.ts';
import { TOOL_DEFAULTS } from './defaults.ts';
import { formatReport, makeMeta, plural, probeDnssec } from './output.ts';
import type { ToolInput, ToolOutput } from './types.ts';

export async function dkimDiscover(ctx: ToolContext, input: ToolInput): Promise<ToolOutput> {
  const { domain } = checkTarget(input.target, { allowIp: false, allowPrivate: false }) as { kind: 'domain'; domain: string };
  const [dkim, dnssec] = await Promise.all([
    discoverDkim(domain, ctx.resolver, { extraSelectors: ctx.settings.dkimSelectors, concurrency: TOOL_DEFAULTS.dkimConcurrency }),
    probeDnssec(ctx, domain),
  ]);
  const result: Record<string, string> = {};
  for (const f of dkim.found) result[`Selector ${f.selector}`] = describe(f);
  result['Keys Found'] = String(dkim.found.length);
  result['Selectors Checked'] = dkim.status === 'no_domainkey' ? `0 (_domainkey.${domain} does not exist)` : dkim.failed.length > 0 ? `${dkim.selectorsTried - dkim.failed.length} of ${dkim.selectorsTried} (the rest failed)` : String(dkim.selectorsTried);
  result.Providers = [...new Set(dkim.found.flatMap((f) => (f.provider ? [f.provider.provider] : [])))].join(', ') || 'none identified';
  if (dkim.failed.length > 0) result['Failed Lookups'] = dkim.failed.map((f) => `${f.selector} (${f.rcode})`).join(', ');
  const findings = dkim.found.flatMap((f) => [...f.key.errors, ...f.key.warnings].map((m) => `${f.selector}: ${m}`));
  return {
    summary: summarize(domain, dkim),
    result,
    data: {
      meta: makeMeta(ctx, domain, null, dnssec.status),
      records: {
        DKIM: dkim.found.map((f) => ({
          selector: f.selector,
          name: f.name,
          record: f.record,
          key_type: f.key.keyType,
          bits: f.key.bits,
          revoked: f.key.revoked,
          testing: f.key.testing,
          provider: f.provider?.provider ?? null,
          provider_evidence: f.provider?.evidence ?? null,
          cnames: f.cnames,
          errors: f.key.errors,
          warnings: f.key.warnings,
        })),
      },
      dkim: {
        status: dkim.status,
        domainkey_rcode: dkim.domainkeyRcode,
        selectors_checked: dkim.selectorsTried,
        failed: dkim.failed,
        elapsed_ms: dkim.elapsedMs,
      },
    },
    report: formatReport(`DKIM keys for ${domain}`, ctx.now().toISOString(), result, findings),
  };
}

function describe(f: DkimSelectorFound): string {
  const key = f.key.revoked ? 'revoked (empty p=)' : `${f.key.keyType.toUpperCase()}${f.key.bits ? ` ${f.key.bits}-bit` : ' (unreadable key)'}`;
  const provider = f.provider ? `, ${f.provider.provider}${f.provider.evidence === 'selector' ? ' (by selector name)' : ''}` : '';
  const cname = f.cnames.length > 0 ? `, via CNAME ${f.cnames[f.cnames.length - 1]}` : '';
  return `${key}${provider}${cname}`;
}

function summarize(domain: string, dkim: DkimDiscovery): string {
  if (dkim.status === 'no_domainkey') return `${domain} publishes no DKIM keys: _domainkey.${domain} does not exist (NXDOMAIN), so no selector can exist below it.`;
  const rcodes = [...new Set(dkim.failed.map((f) => f.rcode))].join(', ');
  if (dkim.status === 'unknown') return `Could not check DKIM keys for ${domain}: all ${plural(dkim.selectorsTried, 'selector lookup')} failed (${rcodes}).`;
  const incomplete = dkim.failed.length > 0 ? ` ${plural(dkim.failed.length, 'lookup')} failed (${rcodes}), so the sweep is incomplete.` : '';
  const checked = dkim.selectorsTried - dkim.failed.length;
  if (dkim.found.length === 0) {
    return `No DKIM keys found for ${domain} among ${checked}${dkim.failed.length > 0 ? ` of ${dkim.selectorsTried}` : ''} common selectors checked; keys under custom selectors cannot be discovered by guessing.${incomplete}`;
  }
  const items = dkim.found.map((f) => `${f.selector} (${describe(f).split(', via')[0]})`);
  return `Found ${plural(dkim.found.length, 'DKIM key')} for ${domain} among ${dkim.selectorsTried} common selectors: ${items.join('; ')}.${incomplete}`;
}
