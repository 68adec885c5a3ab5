// The contract between the mailsec engine's tools and the services that serve them (lookup REST +
// MCP, portfolio-scanner). A tool returns everything but the service envelope fields (`tool`,
// `source`, `cache`, `usage`), which the serving service adds.

import type { Resolver } from '../resolver/types.ts';
import type { ResolverSanity, ResolverSanityOptions } from '../resolver/sanity-check.ts';
import type { DnsblZone } from '../dnsbl/zones.ts';

export const TOOL_NAMES = [
  'dns_lookup',
  'email_security_check',
  'dkim_discover',
  'whois_lookup',
  'spf_analyze',
  'dmarc_check',
  'blacklist_check',
  'validate',
] as const;
export type ToolName = (typeof TOOL_NAMES)[number];

export interface ToolInput {
  /** A domain, or for whois_lookup / blacklist_check also an IP address. Unused by validate. */
  target?: string;
  /** dns_lookup and email_security_check: the complete untruncated record set. */
  detail?: 'full';
  /** validate: the pasted SPF or DMARC record text. */
  record?: string;
}

export interface ToolMeta {
  domain: string;
  email_gateway: string | null;
  /** e.g. `signed` (AD bit seen), `unsigned`, `unknown`. */
  dnssec: string;
  timestamp: string;
  [extra: string]: unknown;
}

export interface ToolOutput {
  /** Plain-English answer. */
  summary: string;
  /** Display strings keyed by label (e.g. "Email Gateway", "SPF", "DMARC Policy (p)"). */
  result: Record<string, string>;
  /** Clean machine values. */
  data: { meta: ToolMeta; records: Record<string, unknown>; [extra: string]: unknown };
  /** Ready-to-quote text block. */
  report: string;
}

/** A target that must not be looked up (bad syntax, private IP where not allowed…): the service answers 400 and sends no DNS query. */
export class TargetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TargetError';
  }
}

export interface EngineOptions {
  /** `host` or `host:port` list (DNS_SERVERS); empty = the system's resolvers. */
  dnsServers: readonly string[];
  /** RDAP bootstrap (IANA dns.json shape); absent = the bootstrap data shipped with the engine. */
  rdapBootstrapUrl?: string;
  /** Port for port-43 WHOIS (tests point it at a local server). */
  whoisPort?: number;
  /** Per-DNS-query timeout. */
  dnsTimeoutMs?: number;
  /** DNSBL zones blacklist_check asks; absent = DNSBL_ZONES (tests point this at the world's zones). */
  dnsblZones?: readonly DnsblZone[];
  /**
   * Accept loopback, private and other special-purpose IP targets (and check such MX addresses on
   * DNSBLs). Off in production; on for the simulated world, which lives in 127.0.0.0/8.
   */
  allowPrivateTargets?: boolean;
  /** TLD -> port-43 WHOIS server (host name or IP literal), merged over WHOIS_SERVERS. */
  whoisServers?: Readonly<Record<string, string>>;
  /** Extra DKIM selectors swept after DKIM_SELECTORS. */
  dkimSelectors?: readonly string[];
  /**
   * Names that certainly exist (DNS_CANARIES): the resolver built from dnsServers is then checked
   * with them (resolver sanity) and, while it cannot be believed, its NXDOMAINs (or, when it answers
   * every name alike, all its answers) read as failed lookups, never "does not exist". Absent or
   * empty: no check. Ignored with `resolver`.
   */
  canaries?: readonly string[];
  /** Tunables of that check (intervals, onChange). */
  sanity?: Omit<ResolverSanityOptions, 'resolver' | 'canaries'>;
  /** A resolver to use instead of building one from dnsServers (the engine then does not close it). */
  resolver?: Resolver;
  /** Clock for `meta.timestamp` and expiry maths; tests inject one. */
  now?: () => Date;
  /** Per-request timeouts of RDAP (HTTP) and port-43 WHOIS. */
  rdapTimeoutMs?: number;
  whoisTimeoutMs?: number;
}

export interface Engine {
  run(tool: ToolName, input: ToolInput): Promise<ToolOutput>;
  /** The check of the engine's own resolver, when it has canaries. */
  readonly resolverSanity?: ResolverSanity;
  close(): Promise<void>;
}
