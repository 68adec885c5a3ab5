// DNSBL queries (RFC 5782) and the meaning of their answers. interpretDnsblAnswer is pure; the
// rest asks the resolver. A refusal answer is "list not usable from here", never a listing; a
// failed query is "could not be checked", never "not listed": a check where no list answered is
// `unknown`, and a partial one counts only the lists that really answered.
import { isIP } from 'node:net';
import { reversedLabels } from '../dns/reverse.ts';
import { isDnsFailure, txtJoin, type Rcode, type Resolver } from '../resolver/types.ts';
import { isSpecialPurposeIp } from '@dv/net';
import type { DnsblZone } from './zones.ts';

export type DnsblOutcome = 'listed' | 'not_listed' | 'unusable' | 'error';

export interface DnsblAnswerMeaning {
  outcome: DnsblOutcome;
  /** The A records returned. */
  codes: string[];
  meanings: string[];
  /** Every listing reason is a policy listing (e.g. PBL), not evidence of abuse. */
  policyOnly: boolean;
  detail?: string;
}

export interface DnsblResult extends DnsblAnswerMeaning {
  zone: string;
  list: string;
  /** The IP or domain checked. */
  subject: string;
  query: string;
  /** TXT reason published with a listing, when any. */
  reason?: string;
  lookupUrl?: string;
  /** The failing rcode when outcome is `error` (SERVFAIL, REFUSED, TIMEOUT...). */
  rcode?: Rcode;
}

export function interpretDnsblAnswer(zone: DnsblZone, addresses: readonly string[]): DnsblAnswerMeaning {
  const codes = [...addresses];
  if (codes.length === 0) return { outcome: 'not_listed', codes, meanings: [], policyOnly: false };
  const refusal = codes.map((c) => zone.refusals[c]).find((r) => r !== undefined);
  if (refusal !== undefined) return { outcome: 'unusable', codes, meanings: [], policyOnly: false, detail: refusal };
  const foreign = codes.find((c) => !c.startsWith('127.'));
  if (foreign !== undefined) {
    return { outcome: 'unusable', codes, meanings: [], policyOnly: false, detail: `answer ${foreign} is outside 127.0.0.0/8: the list is not answering normally` };
  }
  const found: { meaning: string; policy: boolean }[] = [];
  for (const code of codes) {
    if (zone.bitmask) {
      const octet = Number(code.split('.')[3]);
      const bits = Object.entries(zone.codes).filter(([bit]) => (octet & Number(bit)) !== 0);
      if (bits.length === 0) found.push({ meaning: `listed (code ${code})`, policy: false });
      for (const [, c] of bits) found.push({ meaning: c.meaning, policy: c.policy === true });
    } else {
      const c = zone.codes[code];
      found.push(c ? { meaning: c.meaning, policy: c.policy === true } : { meaning: `listed (code ${code})`, policy: false });
    }
  }
  const meanings = [...new Set(found.map((f) => f.meaning))];
  return { outcome: 'listed', codes, meanings, policyOnly: found.every((f) => f.policy) };
}

export async function queryDnsbl(subject: string, zone: DnsblZone, resolver: Resolver): Promise<DnsblResult> {
  const query = `${zone.kind === 'ip' ? reversedLabels(subject) : subject}.${zone.zone}`;
  const base = { zone: zone.zone, list: zone.name, subject, query, ...(zone.lookupUrl ? { lookupUrl: zone.lookupUrl } : {}) };
  const a = await resolver.resolve(query, 'A');
  if (isDnsFailure(a.rcode)) return { ...base, outcome: 'error', codes: [], meanings: [], policyOnly: false, detail: `lookup failed (${a.rcode})`, rcode: a.rcode };
  const meaning = interpretDnsblAnswer(
    zone,
    a.answers.map((r) => r.address),
  );
  if (meaning.outcome !== 'listed') return { ...base, ...meaning };
  const txt = await resolver.resolve(query, 'TXT');
  const reason = txt.answers.map(txtJoin).join(' / ');
  return { ...base, ...meaning, ...(reason ? { reason } : {}) };
}

export interface BlacklistSubjects {
  domain?: string;
  ips: { ip: string; source: string }[];
  skipped: { subject: string; reason: string }[];
  /** Lookups of the domain's MX hosts and addresses that failed: their addresses are unknown, so not checked. */
  failed: { name: string; type: 'MX' | 'A' | 'AAAA'; rcode: Rcode }[];
}

export interface BlacklistCheck {
  target: string;
  kind: 'ip' | 'domain';
  subjects: BlacklistSubjects;
  results: DnsblResult[];
  listed: DnsblResult[];
  unusable: DnsblResult[];
  errors: DnsblResult[];
  /** Distinct lists asked. */
  listsAsked: number;
  /** Distinct lists that answered every query put to them (listed or not): the lists really checked. */
  listsChecked: number;
  /**
   * listed: on at least one list; clean: every list asked answered, no listing, every subject
   * known; partial: no listing on the lists that answered, but some lists or subjects could not
   * be checked; unknown: no list could be checked at all.
   */
  status: 'listed' | 'clean' | 'partial' | 'unknown';
}

export interface BlacklistOptions {
  zones: readonly DnsblZone[];
  allowPrivate: boolean;
  maxIps: number;
}

/** For a domain: its own name on domain lists, and the addresses of its MX hosts and apex A/AAAA on IP lists. */
export async function blacklistSubjects(domain: string, resolver: Resolver, options: Pick<BlacklistOptions, 'allowPrivate' | 'maxIps'>): Promise<BlacklistSubjects> {
  const [mx, a, aaaa] = await Promise.all([resolver.resolve(domain, 'MX'), resolver.resolve(domain, 'A'), resolver.resolve(domain, 'AAAA')]);
  const failed: BlacklistSubjects['failed'] = [];
  const note = (name: string, r: { type: 'MX' | 'A' | 'AAAA'; rcode: Rcode }) => {
    if (isDnsFailure(r.rcode)) failed.push({ name, type: r.type, rcode: r.rcode });
  };
  [mx, a, aaaa].forEach((r) => note(domain, r));
  const hosts = [...mx.answers].sort((x, y) => x.priority - y.priority).map((r) => r.exchange.replace(/\.$/, '')).filter((h) => h !== '' && h !== '.');
  const hostAddrs = await Promise.all(
    hosts.map(async (host) => {
      const [ha, haaaa] = await Promise.all([resolver.resolve(host, 'A'), resolver.resolve(host, 'AAAA')]);
      note(host, ha);
      note(host, haaaa);
      return [...ha.answers, ...haaaa.answers].map((r) => ({ ip: r.address, source: `MX ${host}` }));
    }),
  );
  const candidates = [...hostAddrs.flat(), ...[...a.answers, ...aaaa.answers].map((r) => ({ ip: r.address, source: `A/AAAA ${domain}` }))];
  const ips: BlacklistSubjects['ips'] = [];
  const skipped: BlacklistSubjects['skipped'] = [];
  const seen = new Set<string>();
  for (const c of candidates) {
    if (seen.has(c.ip)) continue;
    seen.add(c.ip);
    if (!options.allowPrivate && isSpecialPurposeIp(c.ip)) skipped.push({ subject: c.ip, reason: `${c.source}: private or special-purpose address` });
    else if (ips.length >= options.maxIps) skipped.push({ subject: c.ip, reason: `${c.source}: more than ${options.maxIps} addresses` });
    else ips.push(c);
  }
  return { domain, ips, skipped, failed };
}

export async function checkBlacklists(target: { kind: 'ip'; ip: string } | { kind: 'domain'; domain: string }, resolver: Resolver, options: BlacklistOptions): Promise<BlacklistCheck> {
  const subjects: BlacklistSubjects = target.kind === 'ip' ? { ips: [{ ip: target.ip, source: 'target' }], skipped: [], failed: [] } : await blacklistSubjects(target.domain, resolver, options);
  const pairs: [string, DnsblZone][] = [];
  for (const zone of options.zones) {
    if (zone.kind === 'domain' && subjects.domain) pairs.push([subjects.domain, zone]);
    if (zone.kind === 'ip') for (const { ip } of subjects.ips) if (isIP(ip) === 4 || zone.ipv6) pairs.push([ip, zone]);
  }
  const results = await Promise.all(pairs.map(([subject, zone]) => queryDnsbl(subject, zone, resolver)));
  const asked = new Set(results.map((r) => r.zone));
  const notAnswered = new Set(results.filter((r) => r.outcome === 'error' || r.outcome === 'unusable').map((r) => r.zone));
  const listsChecked = [...asked].filter((z) => !notAnswered.has(z)).length;
  const listed = results.filter((r) => r.outcome === 'listed');
  const status: BlacklistCheck['status'] =
    listed.length > 0 ? 'listed' : listsChecked === 0 ? 'unknown' : notAnswered.size > 0 || subjects.failed.length > 0 ? 'partial' : 'clean';
  return {
    target: target.kind === 'ip' ? target.ip : target.domain,
    kind: target.kind,
    subjects,
    results,
    listed,
    unusable: results.filter((r) => r.outcome === 'unusable'),
    errors: results.filter((r) => r.outcome === 'error'),
    listsAsked: asked.size,
    listsChecked,
    status,
  };
}
