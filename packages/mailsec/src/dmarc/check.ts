// DMARC policy discovery for one domain (RFC 7489 6.6.3): the record at _dmarc.<domain>, else at
// the organizational domain (Public Suffix List via tldts), then the findings worth telling the
// owner: monitoring-only policy, no aggregate reports, external report addresses that did not
// authorize themselves (RFC 7489 7.1), several records, invalid tags.
import { isDnsFailure, txtJoin, type Resolver } from '../resolver/types.ts';
import { organizationalDomain } from '@dv/net';
import { isDmarcRecordText, parseDmarcRecord, type DmarcPolicy, type DmarcProblem, type DmarcRecord } from './parse.ts';

export type DmarcStatus = 'valid' | 'invalid' | 'none' | 'error';

export interface DmarcExternalReport {
  uri: string;
  domain: string;
  /** The name whose TXT record would authorize it. */
  authorizationName: string;
  /** null: the lookup failed, so it is unknown. */
  authorized: boolean | null;
}

export interface DmarcCheck {
  domain: string;
  orgDomain: string;
  status: DmarcStatus;
  /** Where the record was found: at the domain itself, or at its organizational domain. */
  source: 'domain' | 'organizational' | null;
  /** The name holding the record, e.g. "_dmarc.example.com". */
  recordName: string | null;
  /** The record evaluated (also when invalid). */
  record: string | null;
  /** Every "v=DMARC1" TXT record at that name. */
  records: string[];
  /** The policy receivers apply to this domain: p, or sp (then p) when inherited from the organizational domain. */
  policy: DmarcPolicy | null;
  parsed: DmarcRecord | null;
  externalReports: DmarcExternalReport[];
  errors: DmarcProblem[];
  warnings: DmarcProblem[];
  /** A DNS failure that stopped discovery. */
  dnsError?: string;
}

export async function checkDmarc(domain: string, resolver: Resolver): Promise<DmarcCheck> {
  const orgDomain = organizationalDomain(domain);
  const base: DmarcCheck = {
    domain,
    orgDomain,
    status: 'none',
    source: null,
    recordName: null,
    record: null,
    records: [],
    policy: null,
    parsed: null,
    externalReports: [],
    errors: [],
    warnings: [],
  };
  let found = await fetchRecords(`_dmarc.${domain}`, resolver);
  let source: DmarcCheck['source'] = 'domain';
  if ('error' in found) return { ...base, status: 'error', dnsError: found.error };
  if (found.records.length === 0 && orgDomain !== domain) {
    const org = await fetchRecords(`_dmarc.${orgDomain}`, resolver);
    if ('error' in org) return { ...base, status: 'error', dnsError: org.error };
    found = org;
    source = 'organizational';
  }
  if (found.records.length === 0) {
    return {
      ...base,
      warnings: [{ code: 'no_record', severity: 'error', message: `no DMARC record at _dmarc.${domain}${orgDomain !== domain ? ` or _dmarc.${orgDomain}` : ''}` }],
    };
  }
  const recordName = found.name;
  const policyDomain = recordName.slice('_dmarc.'.length);
  const record = found.records[0] as string;
  const parsed = parseDmarcRecord(record);
  const errors = [...parsed.errors];
  const warnings = [...parsed.warnings];
  if (found.records.length > 1) {
    // RFC 7489 6.6.3 step 5: more than one record means no policy is applied at all.
    errors.unshift({ code: 'multiple_records', severity: 'error', message: `${found.records.length} DMARC records at ${recordName}; receivers apply none of them` });
  }
  const valid = errors.length === 0;
  // RFC 7489 6.6.3: a missing p with a valid rua means p=none; other bad tags fall back to their
  // defaults, so a valid p still applies. Several records mean no policy at all.
  const p = parsed.record.p ?? (parsed.record.tags.p === undefined && parsed.record.rua.length > 0 ? 'none' : undefined);
  const inherited = source === 'organizational' ? (parsed.record.sp ?? p) : p;
  const policy = found.records.length > 1 ? null : (inherited ?? null);
  if (policy === 'none') warnings.push({ code: 'p_none', severity: 'warning', message: 'p=none only monitors: spoofed mail is still delivered', tag: 'p' });
  if (parsed.record.rua.length === 0) warnings.push({ code: 'no_rua', severity: 'warning', message: 'no rua address: nobody receives aggregate reports', tag: 'rua' });
  if (parsed.record.pct < 100 && parsed.record.tags.pct !== undefined) {
    warnings.push({ code: 'pct_below_100', severity: 'warning', message: `pct=${parsed.record.pct}: the policy applies to only ${parsed.record.pct}% of failing mail`, tag: 'pct' });
  }
  if (parsed.record.sp === 'none' && (parsed.record.p === 'quarantine' || parsed.record.p === 'reject')) {
    warnings.push({ code: 'sp_weaker', severity: 'warning', message: `sp=none leaves subdomains unprotected while p=${parsed.record.p}`, tag: 'sp' });
  }
  const externalReports = await checkExternalReports(policyDomain, parsed.record, resolver);
  for (const r of externalReports) {
    if (r.authorized === false) {
      warnings.push({
        code: 'external_rua_unauthorized',
        severity: 'warning',
        message: `${r.uri}: ${r.domain} has not authorized reports for ${policyDomain} (no v=DMARC1 record at ${r.authorizationName}), so receivers will not send them`,
      });
    } else if (r.authorized === null) {
      warnings.push({ code: 'external_rua_unknown', severity: 'warning', message: `${r.uri}: the authorization record ${r.authorizationName} could not be looked up` });
    }
  }
  return {
    ...base,
    status: valid ? 'valid' : 'invalid',
    source,
    recordName,
    record,
    records: found.records,
    policy,
    parsed: parsed.record,
    externalReports,
    errors,
    warnings,
  };
}

async function fetchRecords(name: string, resolver: Resolver): Promise<{ name: string; records: string[] } | { error: string }> {
  const txt = await resolver.resolve(name, 'TXT');
  if (isDnsFailure(txt.rcode)) return { error: `TXT lookup of ${name} failed (${txt.rcode})` };
  return { name, records: txt.answers.map(txtJoin).filter(isDmarcRecordText) };
}

/**
 * RFC 7489 7.1: a report address outside the policy domain's organizational domain receives
 * reports only if <policy-domain>._report._dmarc.<report-domain> publishes "v=DMARC1".
 */
async function checkExternalReports(policyDomain: string, record: DmarcRecord, resolver: Resolver): Promise<DmarcExternalReport[]> {
  const org = organizationalDomain(policyDomain);
  const external = new Map<string, string>();
  for (const uri of [...record.rua, ...record.ruf]) {
    if (uri.domain && organizationalDomain(uri.domain) !== org && !external.has(uri.domain)) external.set(uri.domain, uri.uri);
  }
  return Promise.all(
    [...external].map(async ([domain, uri]) => {
      const authorizationName = `${policyDomain}._report._dmarc.${domain}`;
      const txt = await resolver.resolve(authorizationName, 'TXT');
      const authorized = isDnsFailure(txt.rcode) ? null : txt.answers.map(txtJoin).some(isDmarcRecordText);
      return { uri, domain, authorizationName, authorized };
    }),
  );
}
