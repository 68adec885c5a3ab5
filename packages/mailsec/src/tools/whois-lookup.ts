// whois_lookup: registration data of a domain (RDAP, else port-43 WHOIS) or an IP network (RDAP).
import { checkTarget } from '../target.ts';
import { lookupWhois, type WhoisLookup } from '../whois/lookup.ts';
import type { ToolContext } from './context.ts';
import { TOOL_DEFAULTS } from './defaults.ts';
import { formatReport, list, makeMeta, relativeDays } from './output.ts';
import type { ToolInput, ToolOutput } from './types.ts';

export async function whoisLookup(ctx: ToolContext, input: ToolInput): Promise<ToolOutput> {
  const target = checkTarget(input.target, { allowIp: true, allowPrivate: ctx.settings.allowPrivateTargets });
  const s = ctx.settings;
  const w = await lookupWhois(target, {
    resolver: ctx.resolver,
    bootstrap: ctx.bootstrap,
    servers: s.whoisServers,
    whoisPort: s.whoisPort,
    rdap: { timeoutMs: s.rdapTimeoutMs, maxBytes: TOOL_DEFAULTS.rdapMaxResponseBytes, maxRedirects: TOOL_DEFAULTS.rdapMaxRedirects },
    whois: { timeoutMs: s.whoisTimeoutMs, maxBytes: TOOL_DEFAULTS.whoisMaxResponseBytes },
  });
  const nowMs = ctx.now().getTime();
  const result = display(w, nowMs);
  const reg = w.registration;
  const dnssec = reg?.dnssec === true ? 'signed' : reg?.dnssec === false ? 'unsigned' : w.kind === 'ip' ? 'not_applicable' : 'unknown';
  const data = {
    meta: makeMeta(ctx, w.target, null, dnssec, { query: w.query, source: w.source, server: w.server }),
    records: {},
    whois: {
      kind: w.kind,
      registered: w.registered,
      source: w.source,
      server: w.server,
      ...(reg
        ? {
            registrar: reg.registrar,
            registrar_iana_id: reg.registrarIanaId,
            status: reg.status,
            created: reg.created,
            expires: reg.expires,
            updated: reg.updated,
            nameservers: reg.nameservers,
            registrant_org: reg.registrantOrg,
            registrant_country: reg.registrantCountry,
            dnssec: reg.dnssec,
            expired: reg.expires !== null && Date.parse(reg.expires) < nowMs,
          }
        : {}),
      ...(w.network ? { network: w.network } : {}),
      attempts: w.attempts,
      ...(w.error ? { error: w.error } : {}),
      ...(w.raw !== undefined ? { raw: w.raw } : {}),
    },
  };
  return { summary: summarize(w, nowMs), result, data, report: formatReport(`WHOIS for ${w.query}`, ctx.now().toISOString(), result) };
}

function display(w: WhoisLookup, nowMs: number): Record<string, string> {
  const source = w.source ? `${w.source === 'rdap' ? 'RDAP' : 'WHOIS'} (${w.server ?? ''})` : 'none';
  if (w.network) {
    const n = w.network;
    return {
      Network: n.name ?? 'unknown',
      Handle: n.handle ?? 'unknown',
      Range: n.startAddress && n.endAddress ? `${n.startAddress} - ${n.endAddress}` : 'unknown',
      CIDR: list(n.cidrs),
      Country: n.country ?? 'unknown',
      ASN: list(n.asns.map((a) => `AS${a}`)),
      Organization: n.org ?? 'unknown',
      Source: source,
    };
  }
  const r = w.registration;
  if (!r) return { Registered: w.registered === false ? 'no' : 'unknown', Source: source, ...(w.error ? { Error: w.error } : {}) };
  const when = (iso: string | null) => (iso ? `${iso.slice(0, 10)} (${relativeDays(nowMs, iso) ?? ''})` : 'unknown');
  return {
    Registrar: r.registrar ?? 'unknown',
    Status: list(r.status),
    Created: when(r.created),
    Expires: when(r.expires),
    Updated: when(r.updated),
    'Name Servers': list(r.nameservers),
    'Registrant Organization': r.registrantOrg ?? 'not disclosed',
    'Registrant Country': r.registrantCountry ?? 'not disclosed',
    DNSSEC: r.dnssec === null ? 'unknown' : r.dnssec ? 'signed delegation' : 'unsigned',
    Source: source,
  };
}

function summarize(w: WhoisLookup, nowMs: number): string {
  if (w.network) {
    const n = w.network;
    return `${w.query} belongs to ${n.name ?? 'an unnamed network'}${n.cidrs[0] ? ` (${n.cidrs[0]})` : ''}${n.country ? ` in ${n.country}` : ''}${n.asns.length > 0 ? `, announced by AS${n.asns.join(', AS')}` : ''}.`;
  }
  if (w.registered === false) return `${w.query} is not registered (${w.source === 'rdap' ? 'the RDAP server has no record of it' : 'the WHOIS server has no match'}).`;
  const r = w.registration;
  if (!r) return `No registration data for ${w.query}: ${w.error ?? 'no source answered'}.`;
  const expiresMs = r.expires ? Date.parse(r.expires) : NaN;
  const expiry = Number.isNaN(expiresMs) ? '' : expiresMs < nowMs ? ` It expired on ${r.expires?.slice(0, 10)} (${relativeDays(nowMs, r.expires)}).` : ` It expires on ${r.expires?.slice(0, 10)} (${relativeDays(nowMs, r.expires)}).`;
  const since = r.created ? ` since ${r.created.slice(0, 10)}` : '';
  const pending = r.status.find((s) => /pending ?delete|redemption/i.test(s));
  return `${w.query} is registered${r.registrar ? ` with ${r.registrar}` : ''}${since}.${expiry}${pending ? ` Status: ${pending}.` : ''}`;
}
