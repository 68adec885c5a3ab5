// whois_lookup's engine: RDAP first (bootstrap -> <base>domain/<name> or <base>ip/<addr>), then
// port-43 WHOIS for TLDs without RDAP (or whose RDAP server failed), using the WHOIS_SERVERS table
// or an IANA referral. Domains are looked up by their registrable domain (PSL via tldts).
import { isIP } from 'node:net';
import { isDnsFailure, type Resolver } from '../resolver/types.ts';
import { organizationalDomain } from '@dv/net';
import type { RdapBootstrap } from './bootstrap.ts';
import { fetchJson, type FetchLimits, type FetchOptions, type FetchOutcome } from './http.ts';
import { parseWhoisText } from './parse.ts';
import { whoisExchange } from './port43.ts';
import { normalizeRdapDomain, normalizeRdapIp, type NetworkData, type RegistrationData } from './rdap.ts';
import { WHOIS_IANA_SERVER, type WhoisServer } from './servers.ts';

export interface WhoisAttempt {
  source: 'rdap' | 'whois';
  server: string;
  outcome: string;
}

export interface WhoisLookup {
  target: string;
  kind: 'domain' | 'ip';
  /** What was asked: the registrable domain, or the address. */
  query: string;
  source: 'rdap' | 'whois' | null;
  server: string | null;
  /** null when no source could answer. */
  registered: boolean | null;
  registration?: RegistrationData;
  network?: NetworkData;
  /** The WHOIS text (port 43 only), capped. */
  raw?: string;
  attempts: WhoisAttempt[];
  error?: string;
}

export interface WhoisDeps {
  resolver: Resolver;
  bootstrap: RdapBootstrap;
  servers: Readonly<Record<string, WhoisServer>>;
  whoisPort: number;
  rdap: FetchLimits & { maxRedirects: number };
  whois: FetchLimits;
  /**
   * Every RDAP request goes through this (default: fetchJson). The portfolio scanner passes one
   * that keeps a rate budget per RDAP server and backs off a server that answered 429; it may
   * throw to end the lookup without falling back to port 43.
   */
  rdapFetch?: (url: string, options: FetchOptions) => Promise<FetchOutcome>;
}

const RAW_CHARS = 8000;

export async function lookupWhois(target: { kind: 'domain'; domain: string } | { kind: 'ip'; ip: string }, deps: WhoisDeps): Promise<WhoisLookup> {
  if (target.kind === 'ip') return lookupIp(target.ip, deps);
  const query = organizationalDomain(target.domain);
  const result: WhoisLookup = { target: target.domain, kind: 'domain', query, source: null, server: null, registered: null, attempts: [] };
  for (const base of await deps.bootstrap.domainBaseUrls(query)) {
    const url = new URL(`domain/${encodeURIComponent(query)}`, base).href;
    const res = await (deps.rdapFetch ?? fetchJson)(url, { ...deps.rdap, allowedHosts: deps.bootstrap.allowedHosts() });
    if (res.ok) {
      result.attempts.push({ source: 'rdap', server: url, outcome: 'found' });
      return { ...result, source: 'rdap', server: res.url, registered: true, registration: normalizeRdapDomain(res.body) };
    }
    if (res.status === 404) {
      result.attempts.push({ source: 'rdap', server: url, outcome: 'not found' });
      return { ...result, source: 'rdap', server: res.url, registered: false };
    }
    result.attempts.push({ source: 'rdap', server: url, outcome: res.error });
  }
  return lookupPort43(query, result, deps);
}

async function lookupIp(ip: string, deps: WhoisDeps): Promise<WhoisLookup> {
  const result: WhoisLookup = { target: ip, kind: 'ip', query: ip, source: null, server: null, registered: null, attempts: [] };
  const bases = await deps.bootstrap.ipBaseUrls(ip);
  if (bases.length === 0) return { ...result, error: 'no RDAP service covers this address' };
  for (const base of bases) {
    const url = new URL(`ip/${encodeURIComponent(ip)}`, base).href;
    const res = await (deps.rdapFetch ?? fetchJson)(url, { ...deps.rdap, allowedHosts: deps.bootstrap.allowedHosts() });
    if (res.ok) {
      result.attempts.push({ source: 'rdap', server: url, outcome: 'found' });
      return { ...result, source: 'rdap', server: res.url, registered: true, network: normalizeRdapIp(res.body) };
    }
    if (res.status === 404) {
      result.attempts.push({ source: 'rdap', server: url, outcome: 'not found' });
      return { ...result, source: 'rdap', server: res.url, registered: false };
    }
    result.attempts.push({ source: 'rdap', server: url, outcome: res.error });
  }
  return { ...result, error: `RDAP failed: ${result.attempts.map((a) => a.outcome).join('; ')}` };
}

async function lookupPort43(domain: string, result: WhoisLookup, deps: WhoisDeps): Promise<WhoisLookup> {
  const tld = domain.slice(domain.lastIndexOf('.') + 1);
  let server: WhoisServer | undefined = deps.servers[tld];
  if (!server) {
    // IANA's WHOIS names every TLD's registry server ("whois:" line).
    const referral = await exchange(WHOIS_IANA_SERVER, tld, deps);
    result.attempts.push({ source: 'whois', server: WHOIS_IANA_SERVER, outcome: referral.ok ? 'referral' : referral.error });
    const host = referral.ok ? parseWhoisText(referral.text).referral : null;
    if (!host) return { ...result, error: result.attempts.length > 0 ? `no RDAP or WHOIS server answered for .${tld}` : `no RDAP or WHOIS server known for .${tld}` };
    server = { host };
  }
  const query = (server.query ?? '{domain}').replace('{domain}', domain);
  const answer = await exchange(server.host, query, deps);
  if (!answer.ok) {
    result.attempts.push({ source: 'whois', server: server.host, outcome: answer.error });
    return { ...result, error: `WHOIS ${server.host}: ${answer.error}` };
  }
  result.attempts.push({ source: 'whois', server: server.host, outcome: answer.truncated ? 'answered (truncated)' : 'answered' });
  const parsed = parseWhoisText(answer.text);
  const { registered, referral: _referral, ...registration } = parsed;
  return {
    ...result,
    source: 'whois',
    server: server.host,
    registered,
    ...(registered ? { registration } : {}),
    raw: answer.text.slice(0, RAW_CHARS),
  };
}

/** Resolves the server through the engine's resolver (so DNS_SERVERS applies), then talks port 43. */
async function exchange(host: string, query: string, deps: WhoisDeps): Promise<{ ok: true; text: string; truncated: boolean } | { ok: false; error: string }> {
  let ip = isIP(host) !== 0 ? host : undefined;
  if (!ip) {
    const a = await deps.resolver.resolve(host, 'A');
    const aaaa = a.answers.length > 0 ? undefined : await deps.resolver.resolve(host, 'AAAA');
    ip = a.answers[0]?.address ?? aaaa?.answers[0]?.address;
    if (!ip) return { ok: false, error: `${host} does not resolve (${isDnsFailure(a.rcode) ? a.rcode : 'no address'})` };
  }
  return whoisExchange({ ip, port: deps.whoisPort, query, timeoutMs: deps.whois.timeoutMs, maxBytes: deps.whois.maxBytes });
}
